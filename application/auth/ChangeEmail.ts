import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Mail from "../../domain/auth/Mail.js"
import type { Purpose } from "../../domain/auth/OneTimeToken.js"
import { type Email, User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import type * as ClientInput from "./ClientInput.js"
import * as NewUser from "./NewUser.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendVerification from "./SendVerification.js"

/** The purposes of an email change's two tokens: the current address's and the new one's. */
export const purposes: ReadonlyArray<Purpose> = ["email_change_current", "email_change_new"]

/**
 * Asks `user` to confirm moving to the address `to`, as Supabase Auth's email change: the address
 * is kept as the user's `new_email`, a link and code go to it and — with
 * `MAILER_SECURE_EMAIL_CHANGE_ENABLED` and a current address — another pair to the current
 * address, so that a stolen session alone cannot move the account. A new request replaces the
 * last one's tokens and confirmations; two requests are at least `SMTP_MAX_FREQUENCY` apart.
 * Everything is written in one transaction. Returns the user with the change pending.
 */
export const request = (input: {
  readonly user: User
  readonly to: Email
  readonly redirectTo: string
  /** The request's PKCE challenge (`ClientInput.pkceChallenge`), if it sent one. */
  readonly pkce: Option.Option<ClientInput.PkceChallenge>
  readonly now: Date
}) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const { user, now } = input
    const spacing = settings.verification.spacing
    const secure = settings.verification.secureEmailChange && Option.isSome(user.email)
    yield* SendVerification.takeMailQuota(secure ? 2 : 1, now)
    return yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        Effect.gen(function* () {
          const updated = yield* users.update(
            user.id,
            {
              emailChange: Option.some(input.to),
              emailChangeSentAt: Option.some(now),
              emailChangeConfirmStatus: 0
            },
            now
          )
          const mail = (purpose: Purpose, to: string) =>
            SendVerification.prepare({
              user: updated,
              purpose,
              kind: "email_change",
              type: "email_change",
              to,
              redirectTo: input.redirectTo,
              spacing: Option.some(spacing),
              pkce: { challenge: input.pkce, authenticationMethod: "email_change" },
              now
            }).pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
          yield* mail("email_change_new", input.to)
          if (secure && Option.isSome(user.email)) {
            yield* mail("email_change_current", user.email.value)
          }
          return updated
        })
      )
    )
  }).pipe(
    Effect.catchTags({
      IssuedTooSoon: (error) =>
        Effect.flatMap(AuthSettings, (settings) =>
          SendVerification.sentTooRecently(error, settings.verification.spacing, input.now)
        ),
      UserNotFound: () => new AuthError.UserFromJwtNotFound(),
      EmailExists: () => new AuthError.EmailInUse(),
      PhoneExists: () => new AuthError.PhoneInUse()
    })
  )

/** What using an email change's token came to. */
export type Confirmed =
  /** The other address has yet to confirm (Supabase Auth's "Confirmation link accepted"). */
  { readonly _tag: "Waiting" } | { readonly _tag: "Changed"; readonly user: User }

/**
 * An email change's token was used: one more confirmation of the user's pending change, which
 * needs both addresses when the change is secure (as Supabase Auth decides it: secure change on,
 * autoconfirm off, and a current address). Once changed, the old address hears of it when
 * `MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED`. A change that is no longer pending (replaced,
 * done) is an expired link.
 */
export const confirm = (user: User, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    if (Option.isNone(user.emailChange)) return yield* new AuthError.EmailLinkExpired()
    const needed =
      settings.verification.secureEmailChange && !settings.mailerAutoconfirm && Option.isSome(user.email)
        ? 2
        : 1
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* (yield* Secrets).uuid),
      user: new User({ ...user, email: user.emailChange, emailConfirmedAt: Option.some(now) }),
      provider: "email",
      data: {},
      now
    })
    const outcome = yield* users
      .confirmChange({ userId: user.id, field: "email", needed, identity, now })
      .pipe(
        Effect.catchTags({
          UserNotFound: () => new AuthError.EmailLinkExpired(),
          EmailExists: () => new AuthError.EmailInUse(),
          PhoneExists: () => new AuthError.PhoneInUse()
        })
      )
    if (outcome._tag === "NothingPending") return yield* new AuthError.EmailLinkExpired()
    if (outcome._tag === "Waiting") return { _tag: "Waiting" } satisfies Confirmed
    const previous = outcome.previous
    if (settings.notifications.has("email_changed_notification") && Option.isSome(previous)) {
      const changed = outcome.user
      yield* Effect.flatMap(MailOutbox, (outbox) =>
        outbox.enqueue(
          new Mail.Message({
            kind: "email_changed_notification",
            to: previous.value,
            variables: {
              SiteURL: settings.siteUrl,
              Email: Option.getOrElse(changed.email, () => ""),
              OldEmail: previous.value,
              Data: changed.userMetadata
            }
          }),
          now
        )
      )
    }
    return { _tag: "Changed", user: outcome.user } satisfies Confirmed
  })
