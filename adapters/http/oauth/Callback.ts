import * as Effect from "effect/Effect"
import { callback } from "../../../application/oauth/Callback.js"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as BrowserResponse from "./BrowserResponse.js"

/**
 * The public URL of the request, as the browser saw it behind any proxy: BASE_URL plus path
 * and query. The upstream's client library checks it against the redirect URI it was given.
 */
export const url = (request: HttpRequest) =>
  Effect.map(
    OAuthSettings,
    (settings) =>
      new URL(`${settings.issuer}${request.path}${request.query === "" ? "" : `?${request.query}`}`)
  )

/** GET /callback — the upstream sends the user back here. */
export const handle = (url: URL) => Effect.flatMap(callback(url), BrowserResponse.of)
