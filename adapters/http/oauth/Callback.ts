import * as Effect from "effect/Effect"
import { callback } from "../../../application/oauth/Callback.js"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as BrowserResponse from "./BrowserResponse.js"

/** GET /callback — the upstream sends the user back here. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const settings = yield* OAuthSettings
    // The public URL, as the browser saw it behind any proxy: BASE_URL plus path and query. The
    // upstream's client library checks it against the redirect URI it was given.
    const url = new URL(`${settings.issuer}${request.path}${request.query === "" ? "" : `?${request.query}`}`)
    return yield* BrowserResponse.of(yield* callback(url))
  })
