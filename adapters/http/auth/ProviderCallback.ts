import * as Effect from "effect/Effect"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { callback } from "../../../application/auth/ExternalCallback.js"
import type { HttpRequest } from "../HttpMessage.js"
import { found, locationOf } from "./CallbackRedirect.js"
import * as ClientInfo from "./ClientInfo.js"

/** The URL the provider sent the browser back to: GET /callback's query. */
export const url = (request: HttpRequest) =>
  Effect.map(AuthSettings, (settings) => {
    const url = new URL(`${settings.externalUrl}/callback`)
    url.search = request.query
    return url
  })

/**
 * GET /callback (Supabase Auth's `ExternalProviderCallback`): the provider sends the browser
 * back; 302 to the application with the session in the fragment, `?code=` in the PKCE flow, or
 * the error in the query and the fragment, as Supabase Auth does.
 */
export const handle = (url: URL, _: undefined, request: HttpRequest) =>
  Effect.map(callback({ url, client: ClientInfo.of(request) }), (outcome) => found(locationOf(outcome)))
