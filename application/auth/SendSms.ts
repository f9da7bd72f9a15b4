import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Purpose } from "../../domain/auth/OneTimeToken.js"
import { constantTimeEqual } from "../../domain/ConstantTime.js"
import type { Phone, User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { type Channel, SmsSender } from "./ports/SmsSender.js"
import * as SendVerification from "./SendVerification.js"

/** The request's `channel` (`sms` when absent, as Supabase Auth defaults it), checked against the gateway. */
export const channel = (input: string) =>
  Effect.gen(function* () {
    const sender = yield* SmsSender
    const chosen = input === "" ? "sms" : input
    if (chosen !== "sms" && chosen !== "whatsapp") return yield* new AuthError.SmsChannelUnsupported()
    // Without a gateway the use case answers that texts cannot be sent; the channel is no matter.
    if (sender.provider !== "" && !sender.supports(chosen)) {
      return yield* new AuthError.SmsChannelUnsupported()
    }
    return chosen satisfies Channel
  })

export interface TextedCode {
  readonly user: User
  readonly purpose: Purpose
  /** Supabase Auth's name of the code in its error message: `confirmation`, `phone_change`, … */
  readonly otpType: string
  readonly to: Phone
  readonly channel: Channel
  readonly now: Date
}

/**
 * A one-time code for `user`, stored as a digest (replacing their last one of the purpose) and
 * texted through the gateway while the request waits, as in Supabase Auth, so that a refused
 * number is answered at once (`sms_send_failed` with the gateway's words). At most one text of
 * a purpose per `SMS_MAX_FREQUENCY`. A test number (`SMS_TEST_OTP`) gets its fixed code and no
 * text. Joins the caller's transaction: a refused text leaves no token behind. Returns the
 * gateway's id of the message (`test-otp` for a test number).
 */
export const send = (texted: TextedCode) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const sender = yield* SmsSender
    const secrets = yield* Secrets
    const testCode = settings.sms.testCode(texted.to, texted.now)
    if (Option.isNone(testCode) && sender.provider === "") return yield* new AuthError.SmsUnavailable()
    const code = Option.isSome(testCode)
      ? Redacted.make(testCode.value)
      : yield* secrets.code(settings.sms.codeLength)
    yield* SendVerification.storeToken(
      {
        user: texted.user,
        purpose: texted.purpose,
        to: texted.to,
        // Texts carry no link; the link form is random and never sent.
        link: yield* secrets.token("verification"),
        code,
        lifetime: settings.sms.lifetime,
        flowStateId: Option.none(),
        now: texted.now
      },
      Option.some(settings.sms.spacing)
    ).pipe(
      Effect.catchTag(
        "IssuedTooSoon",
        (error) =>
          new AuthError.SentTooRecently({
            channel: "sms",
            secondsLeft: SendVerification.secondsLeft(error, settings.sms.spacing, texted.now)
          })
      )
    )
    if (Option.isSome(testCode)) return "test-otp"
    return yield* sender
      .send({ to: texted.to, body: settings.sms.text(Redacted.value(code)), channel: texted.channel, code })
      .pipe(
        Effect.catchTag(
          "SmsSendFailed",
          (error) => new AuthError.SmsNotDelivered({ otpType: texted.otpType, detail: error.message })
        )
      )
  })

/**
 * For a gateway that keeps its own codes (Twilio Verify), its verdict on `code` for `phone`; any
 * failure of its check reads as a wrong code, as Supabase Auth reads it. None when the service
 * checks its own codes: the gateway keeps none, or `phone` is a test number with a fixed code.
 */
export const gatewayVerdict = (phone: Phone, code: string, now: Date) =>
  Effect.gen(function* () {
    const sender = yield* SmsSender
    const settings = yield* AuthSettings
    if (Option.isNone(sender.check) || Option.isSome(settings.sms.testCode(phone, now))) {
      return Option.none<boolean>()
    }
    return Option.some(
      yield* sender.check.value(phone, Redacted.make(code)).pipe(Effect.orElseSucceed(() => false))
    )
  })

/**
 * Whether `code` is the one texted to `phone` for `user` and one of `purposes`, used up if so:
 * a test number's fixed code; for a gateway that keeps its own codes (Twilio Verify), the
 * gateway's verdict; otherwise the stored digest (OneTimeTokenStore, a few wrong codes end it).
 */
export const check = (user: User, phone: Phone, purposes: ReadonlyArray<Purpose>, code: string, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const testCode = settings.sms.testCode(phone, now)
    if (Option.isSome(testCode)) return constantTimeEqual(testCode.value, code)
    const verdict = yield* gatewayVerdict(phone, code, now)
    if (Option.isSome(verdict)) return verdict.value
    return yield* SendVerification.useCode(user, purposes, code, now)
  })
