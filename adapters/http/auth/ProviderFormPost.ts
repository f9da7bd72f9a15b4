import * as Effect from "effect/Effect"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { callback } from "../../../application/auth/ExternalCallback.js"
import type { HttpRequest } from "../HttpMessage.js"
import { found, locationOf } from "./CallbackRedirect.js"
import * as ClientInfo from "./ClientInfo.js"

/**
 * The URL the provider sent the browser back to, for providers that answer with a form (Apple's
 * `form_post`): the query, and the POSTed fields read as the query would be.
 */
export const url = (request: HttpRequest) =>
  Effect.map(AuthSettings, (settings) => {
    const url = new URL(`${settings.externalUrl}/callback`)
    url.search = request.query
    for (const [key, value] of new URLSearchParams(request.body)) {
      if (!url.searchParams.has(key)) url.searchParams.append(key, value)
    }
    return url
  })

/**
 * POST /callback (Supabase Auth's `ExternalProviderCallback`): the provider's form sends the
 * browser back, answered as GET /callback (ProviderCallback) answers: 302 to the application
 * with the session in the fragment, `?code=` in the PKCE flow, or the error in the query and
 * the fragment.
 */
export const handle = (url: URL, _: undefined, request: HttpRequest) =>
  Effect.map(callback({ url, client: ClientInfo.of(request) }), (outcome) => found(locationOf(outcome)))
