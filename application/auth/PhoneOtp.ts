import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ClientInput from "./ClientInput.js"
import * as NewUser from "./NewUser.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"

/** POST /otp with a phone number, as decoded from the body. */
export interface PhoneOtpRequest {
  readonly phone: string
  /** `create_user`: make a user for a number nobody has (default true). */
  readonly createUser: boolean
  readonly data: Readonly<Record<string, unknown>>
  readonly channel: string
}

/** What was sent: the gateway's message id, which Supabase Auth returns only for a confirmed user. */
export type PhoneOtpSent = { readonly messageId: Option.Option<string> }

/**
 * POST /otp with a phone (supabase-js `signInWithOtp({ phone })`): a code texted to the number,
 * which POST /verify with type `sms` exchanges for a session. As in Supabase Auth, a number
 * nobody has gets a new user (unless `create_user` is false), made without a password and
 * confirmed by that code (at once under `SMS_AUTOCONFIRM`), written with the code in one
 * transaction. A number nobody has with `create_user` false gets the same empty answer as a new
 * one, and no text.
 */
export const sendPhoneOtp = Telemetry.fn("PhoneOtp.sendPhoneOtp")((request: PhoneOtpRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.phoneEnabled) return yield* new AuthError.PhoneOtpDisabled()
    const phone = yield* ClientInput.phone(request.phone)
    const channel = yield* SendSms.channel(request.channel)
    const users = yield* UserRepository
    const transactions = yield* Transactions
    const now = new Date(yield* Clock.currentTimeMillis)
    const text = (user: User) =>
      SendSms.send({ user, purpose: "confirmation", otpType: "confirmation", to: phone, channel, now })

    const existing = yield* users.findByPhone(phone)
    if (Option.isSome(existing) || request.createUser) yield* SendVerification.takeTextQuota(phone, now)
    if (Option.isSome(existing)) {
      const user = existing.value
      const confirmed = Option.isSome(user.phoneConfirmedAt)
      const messageId = yield* transactions.run(
        Effect.zipLeft(
          text(user),
          confirmed
            ? Effect.void
            : users
                .update(user.id, { confirmationSentAt: Option.some(now) }, now)
                .pipe(Effect.catchAll(() => new AuthError.UserNotSaved({ write: "update" })))
        )
      )
      return { messageId: confirmed ? Option.some(messageId) : Option.none() } satisfies PhoneOtpSent
    }
    if (!request.createUser) return { messageId: Option.none() } satisfies PhoneOtpSent
    if (settings.disableSignup) return yield* new AuthError.SignupDisabled()
    const secrets = yield* Secrets
    const made = NewUser.user({
      id: NewUser.newUserId(yield* secrets.uuid),
      aud: settings.audience,
      contact: { _tag: "phone", phone },
      data: request.data,
      confirmed: settings.smsAutoconfirm,
      now
    })
    const user = settings.smsAutoconfirm
      ? made
      : new User({ ...made, confirmationSentAt: Option.some(now) }, true)
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* secrets.uuid),
      user,
      provider: "phone",
      data: request.data,
      now
    })
    const messageId = yield* transactions.run(
      Effect.zipRight(
        users.insert(user, [identity], Option.none()).pipe(
          // Someone took the number a moment ago: as if it had been theirs all along.
          Effect.catchAll(() => new AuthError.PhoneInUse())
        ),
        text(user)
      )
    )
    yield* Telemetry.annotate("user.id", user.id)
    return {
      messageId: settings.smsAutoconfirm ? Option.some(messageId) : Option.none()
    } satisfies PhoneOtpSent
  })
)
