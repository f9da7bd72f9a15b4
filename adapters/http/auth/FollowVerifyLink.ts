import * as Effect from "effect/Effect"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { check } from "../../../application/auth/Verify.js"
import type { HttpRequest } from "../HttpMessage.js"
import { AuthHttpConfig } from "./AuthHttpConfig.js"
import { linkOf, useLink, verifyRequestOf } from "./VerifyLink.js"
import * as VerifyPage from "./VerifyPage.js"

/** The link of GET /verify, from its query. */
export const input = (request: HttpRequest) => Effect.succeed(linkOf(new URLSearchParams(request.query)))

/**
 * GET /verify — a mailed link followed. As Supabase Auth, it uses the link (`useLink`), unless
 * nobody can have followed it: a HEAD or a browser's prefetch (VerifyPage.isPrefetch) never
 * uses a token. With `MAILER_LINK_CONFIRMATION_PAGE` no GET uses one: mail scanners and link
 * previews open every link of a mail, and the person would find theirs used up. They all get
 * the confirmation page instead, whose button posts the link back (VerifyOtp, POST /verify); a
 * link that could never work (no type, an unknown type, no token) is answered as following it
 * would be. The page tells nothing of the token: it is not looked up until the press.
 */
export const handle = (link: VerifyPage.Link, _: undefined, request: HttpRequest) =>
  Effect.gen(function* () {
    const config = yield* AuthHttpConfig
    if (!config.linkConfirmationPage && request.method === "GET" && !VerifyPage.isPrefetch(request)) {
      return yield* useLink(link, request)
    }
    yield* check(verifyRequestOf(link, request))
    const settings = yield* AuthSettings
    return VerifyPage.render(link, settings.redirectTarget(link.redirectTo))
  })
