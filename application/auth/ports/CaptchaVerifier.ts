import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** The provider found the token good: solved, for this site, not seen before. */
export const Passed = Schema.TaggedStruct("Passed", {})

/**
 * The provider refused the token; `errorCodes` are its own words (`invalid-input-response`,
 * `timeout-or-duplicate`, …), which Supabase Auth shows the client in `captcha_failed`.
 */
export const Refused = Schema.TaggedStruct("Refused", { errorCodes: Schema.Array(Schema.String) })

export const Outcome = Schema.Union(Passed, Refused)
export type Outcome = typeof Outcome.Type

/**
 * The provider gave no verdict: it could not be reached, did not answer in time, or answered
 * something that is not a verification result. `message` says which, for the logs; it never
 * holds the secret or the token.
 */
export class CaptchaUnavailable extends Schema.TaggedError<CaptchaUnavailable>()("CaptchaUnavailable", {
  message: Schema.String
}) {}

/**
 * The captcha provider chosen by `SECURITY_CAPTCHA_PROVIDER`, asked whether the token a client
 * sent was earned by solving its challenge. `remoteIp` is the client's address, which the
 * provider weighs when it is known.
 */
export class CaptchaVerifier extends Context.Tag("latchkey/auth/CaptchaVerifier")<
  CaptchaVerifier,
  {
    /** `SECURITY_CAPTCHA_PROVIDER`: `hcaptcha` or `turnstile`, for the logs. */
    readonly provider: string
    readonly verify: (
      token: string,
      remoteIp: Option.Option<string>
    ) => Effect.Effect<Outcome, CaptchaUnavailable>
  }
>() {}
