import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { Transactions } from "./ports/Transactions.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"

/**
 * GET /reauthenticate (supabase-js `reauthenticate`): a nonce — a one-time code — mailed to the
 * signed-in user's confirmed address, which `PUT /user` takes as `nonce` to change the password
 * when `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION` asks for it. At most once per
 * `SMTP_MAX_FREQUENCY`. A user with only a phone number gets it by text (SendSms).
 */
export const reauthenticate = Telemetry.fn("Reauthenticate.reauthenticate")((signedIn: SignedIn) =>
  Effect.gen(function* () {
    const user = signedIn.user
    const email = user.email
    if (Option.isNone(email) && Option.isNone(user.phone)) {
      return yield* new AuthError.ReauthenticationWithoutContact()
    }
    if (Option.isNone(email)) {
      const phone = user.phone
      if (Option.isNone(phone) || Option.isNone(user.phoneConfirmedAt)) {
        return yield* new AuthError.ContactNotVerified({ channel: "phone" })
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* SendVerification.takeTextQuota(phone.value, now)
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          SendSms.send({
            user,
            purpose: "reauthentication",
            otpType: "reauthentication",
            to: phone.value,
            channel: "sms",
            now
          })
        )
      )
      return
    }
    if (Option.isNone(user.emailConfirmedAt)) {
      return yield* new AuthError.ContactNotVerified({ channel: "email" })
    }
    const settings = yield* AuthSettings
    const now = new Date(yield* Clock.currentTimeMillis)
    const spacing = settings.verification.spacing
    yield* SendVerification.takeMailQuota(1, now)
    yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        SendVerification.prepare({
          user,
          purpose: "reauthentication",
          kind: "reauthentication",
          type: "reauthentication",
          to: email.value,
          redirectTo: settings.siteUrl,
          spacing: Option.some(spacing),
          now
        }).pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
      )
    ).pipe(Effect.catchTag("IssuedTooSoon", (error) => SendVerification.sentTooRecently(error, spacing, now)))
  })
)
