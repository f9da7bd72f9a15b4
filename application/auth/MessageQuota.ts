import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Phone } from "../../domain/User.js"
import { RateLimiter } from "../ports/RateLimiter.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"

/**
 * The service-wide caps on messages with a link or code, as Supabase Auth keeps them (there per
 * process; here in the database, shared by every instance): `RATE_LIMIT_EMAIL_SENT` mails and
 * `RATE_LIMIT_SMS_SENT` texts per hour, all users together. A use case takes its share before
 * its transaction opens (the count has a connection of its own and must not wait for one while
 * holding another); refused requests count too, and a request that then sends nothing keeps
 * its share spent.
 */

/** `count` mails to send; 429 `over_email_send_rate_limit` past the cap. */
export const mails = (count: number, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const limiter = yield* RateLimiter
    for (let sent = 0; sent < count; sent++) {
      const verdict = yield* limiter.consume("auth:email_sent", settings.limits.emailSent, now)
      if (!verdict.allowed) return yield* new AuthError.OverEmailSendRateLimit()
    }
  })

/**
 * One text to send; 429 `over_sms_send_rate_limit` past the cap. As in Supabase Auth, texts
 * under `SMS_AUTOCONFIRM` and to test numbers (`SMS_TEST_OTP`) are not counted.
 */
export const text = (to: Phone, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (settings.smsAutoconfirm || Option.isSome(settings.sms.testCode(to, now))) return
    const verdict = yield* Effect.flatMap(RateLimiter, (limiter) =>
      limiter.consume("auth:sms_sent", settings.limits.smsSent, now)
    )
    if (!verdict.allowed) return yield* new AuthError.OverSmsSendRateLimit()
  })
