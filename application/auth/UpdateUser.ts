import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Assurance from "../../domain/auth/Assurance.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Time from "../../domain/Time.js"
import { emailConfirmed, type Phone, type User } from "../../domain/User.js"
import { PasswordHasher } from "../ports/PasswordHasher.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ChangeEmail from "./ChangeEmail.js"
import * as ChangePhone from "./ChangePhone.js"
import * as ClientInput from "./ClientInput.js"
import * as NewUser from "./NewUser.js"
import * as PasswordChange from "./PasswordChange.js"
import * as PasswordStrength from "./PasswordStrength.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { Transactions } from "./ports/Transactions.js"
import { type UserPatch, UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"
import * as UserMetadata from "./UserMetadata.js"

/** PUT /user, as decoded from the body; absent fields change nothing. */
export interface UpdateUserRequest {
  readonly email: string
  readonly phone: string
  /** None: the password is not changed. */
  readonly password: Option.Option<string>
  /** `current_password`, asked for under `SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`; `""`: none. */
  readonly currentPassword: string
  readonly nonce: string
  readonly data: Option.Option<Readonly<Record<string, unknown>>>
  readonly appMetadata: Option.Option<Readonly<Record<string, unknown>>>
  /** `redirect_to` of the query (supabase-js `options.emailRedirectTo`): where an email change's link ends. */
  readonly redirectTo: string
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
  /** How a phone change's code travels: `sms` (default) or `whatsapp`. */
  readonly channel: string
}

/**
 * A phone change: made at once under `SMS_AUTOCONFIRM` (as Supabase Auth, which then treats it as
 * confirmed), otherwise pending until the code texted to the new number comes back.
 */
const changePhone = (user: User, to: Phone, channel: string, now: Date) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (!settings.smsAutoconfirm) {
      return yield* ChangePhone.request({ user, to, channel: yield* SendSms.channel(channel), now })
    }
    const pending = yield* (yield* UserRepository)
      .update(user.id, { phoneChange: Option.some(to), phoneChangeSentAt: Option.some(now) }, now)
      .pipe(Effect.catchAll(() => new AuthError.UserFromJwtNotFound()))
    return yield* ChangePhone.confirm(pending, now)
  })

/** Whether the request's session was begun by a recovery, or another mailed or texted code (its `amr`). */
const recovering = (signedIn: SignedIn) =>
  Option.exists(signedIn.session, (session) => Assurance.begunByRecovery(session.amr))

/** A session older than this needs a reauthentication nonce to change the password. */
const recentSignIn = "24 hours"

/**
 * Changes the signed-in user, as Supabase Auth's `PUT /user`: metadata (merged key by key),
 * the password (checked against the policy, not the same as before, with a reauthentication
 * nonce — the code GET /reauthenticate mails — when required and the session is older than a
 * day, and with the current password when required but after a recovery; the user's other
 * sessions end with it: PasswordChange), and the email address: for an anonymous user while email autoconfirm is on at once,
 * which makes the user a permanent one, otherwise once the mailed links confirm it
 * (ChangeEmail); and the phone number, confirmed by a code texted to it (ChangePhone).
 */
export const updateUser = Telemetry.fn("UpdateUser.updateUser")(
  (signedIn: SignedIn, request: UpdateUserRequest) =>
    Effect.gen(function* () {
      const settings = yield* AuthSettings
      const users = yield* UserRepository
      const hasher = yield* PasswordHasher
      const user = signedIn.user
      const email =
        request.email === "" ? Option.none() : Option.some(yield* ClientInput.email(request.email))
      const phone =
        request.phone === "" ? Option.none() : Option.some(yield* ClientInput.phone(request.phone))
      if (Option.isSome(request.password)) {
        yield* PasswordStrength.ensure(settings.passwordPolicy, request.password.value)
      }
      const challenge = yield* ClientInput.pkceChallenge(request.codeChallenge, request.codeChallengeMethod)
      if (Option.isSome(request.appMetadata) && !settings.adminRoles.includes(user.role)) {
        return yield* new AuthError.AppMetadataNeedsAdmin()
      }
      const changesPassword = Option.exists(request.password, (password) => password !== "")
      if (user.isAnonymous && changesPassword && Option.isNone(email) && Option.isNone(phone)) {
        return yield* new AuthError.AnonymousPasswordWithoutContact()
      }
      const newEmail = Option.filter(email, (address) => !Option.contains(user.email, address))
      const newPhone = Option.filter(phone, (number) => !Option.contains(user.phone, number))
      if (Option.isSome(newEmail) && Option.isSome(yield* users.findByEmail(newEmail.value))) {
        return yield* new AuthError.EmailInUse()
      }
      if (Option.isSome(newPhone) && Option.isSome(yield* users.findByPhone(newPhone.value))) {
        return yield* new AuthError.PhoneInUse()
      }
      const now = new Date(yield* Clock.currentTimeMillis)

      let passwordHash = Option.none<string>()
      if (Option.isSome(request.password)) {
        if (settings.updatePasswordRequiresReauthentication) {
          const fresh = Option.exists(signedIn.session, (session) =>
            Time.isAtOrAfter(Time.plus(session.createdAt, recentSignIn), now)
          )
          if (!fresh) {
            if (request.nonce === "") return yield* new AuthError.ReauthenticationNeeded()
            // The code GET /reauthenticate mailed, or texted to a user without an address (checked
            // by the gateway under Twilio Verify); used up here whether the change then lands.
            const valid =
              Option.isNone(user.email) && Option.isSome(user.phone)
                ? yield* SendSms.check(user, user.phone.value, ["reauthentication"], request.nonce, now)
                : yield* SendVerification.useCode(user, ["reauthentication"], request.nonce, now)
            if (!valid) return yield* new AuthError.ReauthenticationNotValid()
          }
        }
        const password = Redacted.make(request.password.value)
        const current = yield* users.findPasswordHash(user.id)
        if (request.password.value !== "" && Option.isSome(current)) {
          // Whoever forgot the password proves themselves by the recovery instead.
          if (settings.updatePasswordRequiresCurrentPassword && !recovering(signedIn)) {
            if (request.currentPassword === "") return yield* new AuthError.CurrentPasswordRequired()
            const named = yield* hasher.verify(Redacted.make(request.currentPassword), current.value)
            if (!named.matches) return yield* new AuthError.CurrentPasswordInvalid()
          }
          if ((yield* hasher.verify(password, current.value)).matches)
            return yield* new AuthError.SamePassword()
        }
        passwordHash = Option.some(yield* hasher.hash(password))
      }

      const patch: { -readonly [K in keyof UserPatch]: UserPatch[K] } = {}
      if (Option.isSome(request.data))
        patch.userMetadata = UserMetadata.merge(user.userMetadata, request.data.value)
      if (Option.isSome(request.appMetadata)) {
        patch.appMetadata = UserMetadata.merge(user.appMetadata, request.appMetadata.value)
      }
      const becomesPermanent = user.isAnonymous && Option.isSome(newEmail) && settings.mailerAutoconfirm
      if (becomesPermanent) {
        patch.email = newEmail
        // Confirmed as Supabase Auth's email change confirms a first address, after the data.
        const confirmed = emailConfirmed(patch.userMetadata ?? user.userMetadata, now)
        patch.emailConfirmedAt = confirmed.emailConfirmedAt
        patch.userMetadata = confirmed.userMetadata
        patch.isAnonymous = false
        patch.appMetadata = {
          ...(patch.appMetadata ?? user.appMetadata),
          provider: "email",
          providers: ["email"]
        }
      }

      const notFound = () => Effect.fail(new AuthError.UserFromJwtNotFound())
      if (Option.isSome(passwordHash)) {
        const email = user.email
        const notify = settings.notifications.has("password_changed_notification") && Option.isSome(email)
        // The hash, the end of the user's other sessions and (MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED)
        // the owner's notice, all or nothing.
        yield* Effect.flatMap(Transactions, (transactions) =>
          transactions.run(
            Effect.gen(function* () {
              yield* PasswordChange.store(
                user.id,
                passwordHash.value,
                Option.map(signedIn.session, (session) => session.id),
                now
              )
              if (notify && Option.isSome(email)) {
                yield* (yield* MailOutbox).enqueue(
                  new Mail.Message({
                    kind: "password_changed_notification",
                    to: email.value,
                    variables: { Email: email.value, SiteURL: settings.siteUrl, Data: user.userMetadata }
                  }),
                  now
                )
              }
            })
          )
        ).pipe(Effect.catchTag("UserNotFound", notFound))
      }
      const patched: User = yield* users.update(user.id, patch, now).pipe(
        Effect.catchTags({
          UserNotFound: notFound,
          EmailExists: () => Effect.fail(new AuthError.EmailInUse()),
          PhoneExists: () => Effect.fail(new AuthError.PhoneInUse())
        })
      )
      const withEmail =
        Option.isSome(newEmail) && !becomesPermanent
          ? yield* ChangeEmail.request({
              user: patched,
              to: newEmail.value,
              redirectTo: settings.redirectTarget(request.redirectTo),
              pkce: challenge,
              now
            })
          : patched
      const updated = Option.isSome(newPhone)
        ? yield* changePhone(withEmail, newPhone.value, request.channel, now)
        : withEmail
      if (becomesPermanent) {
        const secrets = yield* Secrets
        const identity = NewUser.identity({
          id: NewUser.newIdentityId(yield* secrets.uuid),
          user: updated,
          provider: "email",
          data: {},
          now
        })
        yield* users
          .addIdentity(identity)
          .pipe(Effect.catchAll(() => Effect.fail(new AuthError.EmailInUse())))
      }
      // The factors as the request's read found them: nothing here changes them.
      return { user: updated, identities: yield* users.identitiesOf(user.id), factors: signedIn.factors }
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
