import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import * as Captcha from "../../../application/auth/Captcha.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as Bearer from "./Bearer.js"
import * as ClientInfo from "./ClientInfo.js"
import * as JsonRequest from "./JsonRequest.js"
import { field } from "./JsonRequest.js"

/** Where supabase-js puts the captcha token (`options.captchaToken`), read on its own. */
const MetaSecurity = Schema.Struct({
  gotrue_meta_security: field(Schema.Struct({ captcha_token: field(Schema.String) }))
})

/**
 * Supabase Auth's captcha check of a request it guards (SECURITY_CAPTCHA_ENABLED): the body's
 * `gotrue_meta_security.captcha_token` verified with the provider, before anything else of the
 * request is read. An administrator's bearer (service_role) skips it, as there; any other
 * bearer, valid or not, does not.
 */
export const guard = (request: HttpRequest) =>
  Effect.gen(function* () {
    if (!(yield* Captcha.CaptchaSettings).enabled) return
    const admin = yield* Bearer.token(request).pipe(
      Effect.flatMap(Authenticate.admin),
      Effect.option,
      Effect.map(Option.isSome)
    )
    if (admin) return
    const body = yield* JsonRequest.decode(MetaSecurity)(request)
    yield* Captcha.check(body.gotrue_meta_security?.captcha_token, ClientInfo.of(request).ip)
  })
