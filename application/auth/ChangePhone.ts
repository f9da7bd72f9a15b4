import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Mail from "../../domain/auth/Mail.js"
import { type Phone, User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as NewUser from "./NewUser.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import type { Channel } from "./ports/SmsSender.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"

/**
 * Asks `user` to confirm moving to the number `to`, as Supabase Auth's phone change: the number
 * is kept as the user's `new_phone` and a code is texted to it (SendSms), both in one
 * transaction, so a refused text leaves nothing pending. Returns the user with the change pending.
 */
export const request = (input: {
  readonly user: User
  readonly to: Phone
  readonly channel: Channel
  readonly now: Date
}) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const { user, to, now } = input
    yield* SendVerification.takeTextQuota(to, now)
    return yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        Effect.gen(function* () {
          const pending = yield* users.update(
            user.id,
            { phoneChange: Option.some(to), phoneChangeSentAt: Option.some(now) },
            now
          )
          yield* SendSms.send({
            user: pending,
            purpose: "phone_change",
            otpType: "phone_change",
            to,
            channel: input.channel,
            now
          })
          return pending
        })
      )
    ).pipe(
      Effect.catchTags({
        UserNotFound: () => new AuthError.UserFromJwtNotFound(),
        EmailExists: () => new AuthError.EmailInUse(),
        PhoneExists: () => new AuthError.PhoneInUse()
      })
    )
  })

/**
 * The pending phone change confirmed by its code: the number becomes the user's, confirmed, with
 * a `phone` identity carrying it, and the user's address hears of it when
 * `MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED` (a number replaced) or
 * `MAILER_NOTIFICATIONS_IDENTITY_LINKED_ENABLED` (a first number: a new identity). A change no longer pending is an expired code.
 */
export const confirm = (user: User, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* (yield* Secrets).uuid),
      user: new User({ ...user, phone: user.phoneChange, phoneConfirmedAt: Option.some(now) }),
      provider: "phone",
      data: {},
      now
    })
    const hadPhoneIdentity = (yield* users.identitiesOf(user.id)).some((known) => known.provider === "phone")
    const outcome = yield* users
      .confirmChange({ userId: user.id, field: "phone", needed: 1, identity, now })
      .pipe(
        Effect.catchTags({
          UserNotFound: () => new AuthError.OtpExpired(),
          EmailExists: () => new AuthError.EmailInUse(),
          PhoneExists: () => new AuthError.PhoneInUse()
        })
      )
    if (outcome._tag !== "Changed") return yield* new AuthError.OtpExpired()
    const changed = outcome.user
    const email = changed.email
    if (Option.isNone(email)) return changed
    const notify = (kind: Mail.Notification, variables: Record<string, unknown>) =>
      settings.notifications.has(kind)
        ? Effect.flatMap(MailOutbox, (outbox) =>
            outbox.enqueue(
              new Mail.Message({
                kind,
                to: email.value,
                variables: {
                  SiteURL: settings.siteUrl,
                  Email: email.value,
                  Data: changed.userMetadata,
                  ...variables
                }
              }),
              now
            )
          )
        : Effect.void
    if (Option.isSome(outcome.previous)) {
      yield* notify("phone_changed_notification", {
        Phone: Option.getOrElse(changed.phone, () => ""),
        OldPhone: outcome.previous.value
      })
    }
    // A first number adds a `phone` identity: a new way to sign in, which Supabase Auth announces.
    if (!hadPhoneIdentity) yield* notify("identity_linked_notification", { Provider: "phone" })
    return changed
  })
