import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Identity } from "../../domain/Identity.js"
import { User } from "../../domain/User.js"
import { PasswordHasher } from "../ports/PasswordHasher.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as ClientInput from "./ClientInput.js"
import * as IssueSession from "./IssueSession.js"
import * as NewUser from "./NewUser.js"
import * as PasswordStrength from "./PasswordStrength.js"
import { Transactions } from "./ports/Transactions.js"
import { UserRepository } from "./ports/UserRepository.js"
import * as SendSms from "./SendSms.js"
import * as SendVerification from "./SendVerification.js"

/** POST /signup with an email or a phone number, as decoded from the body (`""` when absent). */
export interface SignupRequest {
  readonly email: string
  readonly phone: string
  readonly password: string
  readonly data: Readonly<Record<string, unknown>>
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
  /** `redirect_to` of the query (supabase-js `emailRedirectTo`); `""` when absent. */
  readonly redirectTo: string
  /** How a phone's confirmation code travels: `sms` (default) or `whatsapp`. */
  readonly channel: string
  readonly client: IssueSession.Client
}

export type SignupOutcome =
  /** Confirmed at once (autoconfirm): signed in. */
  | { readonly _tag: "SignedIn"; readonly grant: IssueSession.Grant }
  /**
   * The user to confirm, as stored; or, when the address belongs to a confirmed user, a faux
   * user with a fresh id, so the answer does not tell whether the address is taken.
   */
  | { readonly _tag: "Created"; readonly user: User; readonly identities: ReadonlyArray<Identity> }

type Contact = Parameters<typeof NewUser.user>[0]["contact"]

/**
 * What Supabase Auth answers for an address that is already a confirmed user's, when it does not
 * say so: the sign-up's own data under a fresh id, unconfirmed, with no identities.
 */
const fauxUser = (
  contact: Contact,
  data: Readonly<Record<string, unknown>>,
  aud: string,
  id: string,
  now: Date
) =>
  new User({
    ...NewUser.user({ id: NewUser.newUserId(id), aud, contact, data, confirmed: false, now }),
    role: "",
    confirmationSentAt: Option.some(now)
  })

/**
 * Sign-up with a password, as Supabase Auth's `POST /signup`: checks in its order, then a new
 * user with its `email` or `phone` identity. With autoconfirm the user is confirmed and signed
 * in; otherwise the user waits for a confirmation, written with the user: by email, the mail with
 * its link and code is queued (SendVerification); by phone, a code is texted (SendSms).
 */
export const signup = Telemetry.fn("Signup.signup")((request: SignupRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    if (settings.disableSignup) return yield* new AuthError.SignupDisabled()
    const provider: NewUser.Provider = request.email !== "" ? "email" : "phone"
    if (request.password === "") return yield* new AuthError.SignupWithoutPassword()
    yield* PasswordStrength.ensure(settings.passwordPolicy, request.password)
    if (request.email !== "" && request.phone !== "") {
      return yield* new AuthError.EmailAndPhoneGiven({ at: "signup" })
    }
    if (provider === "phone" && request.codeChallenge !== "") {
      return yield* new AuthError.PkceParamsInvalid({ problem: "phone_signup" })
    }
    const challenge = yield* ClientInput.pkceChallenge(request.codeChallenge, request.codeChallengeMethod)

    const users = yield* UserRepository
    let contact: Contact
    let existing: Option.Option<User>
    if (provider === "email") {
      if (!settings.emailEnabled) return yield* new AuthError.EmailSignupsDisabled()
      const email = yield* ClientInput.email(request.email)
      contact = { _tag: "email", email }
      existing = yield* users.findByEmail(email)
    } else {
      if (!settings.phoneEnabled) return yield* new AuthError.PhoneSignupsDisabled()
      const phone = yield* ClientInput.phone(request.phone)
      contact = { _tag: "phone", phone }
      existing = yield* users.findByPhone(phone)
    }
    const channel = provider === "phone" ? yield* SendSms.channel(request.channel) : "sms"

    const now = new Date(yield* Clock.currentTimeMillis)
    const secrets = yield* Secrets
    const hasher = yield* PasswordHasher
    // Hashed in every case, so that a sign-up with a taken address takes as long as a new one.
    const passwordHash = yield* hasher.hash(Redacted.make(request.password))
    const autoconfirm = provider === "email" ? settings.mailerAutoconfirm : settings.smsAutoconfirm

    const transactions = yield* Transactions
    /** The confirmation mail of `user`, to `to`. */
    const mailed = (user: User, to: string): SendVerification.Verification => ({
      user,
      purpose: "confirmation",
      kind: "confirmation",
      type: "signup",
      to,
      redirectTo: settings.redirectTarget(request.redirectTo),
      spacing: Option.some(settings.verification.spacing),
      pkce: { challenge, authenticationMethod: "email/signup" },
      now
    })
    /**
     * The user's confirmation sent and stamped, both or neither: a mail queued, or a code
     * texted while the request waits.
     */
    const confirm = (user: User) =>
      transactions.run(
        Effect.gen(function* () {
          if (contact._tag === "email") {
            yield* SendVerification.prepare(mailed(user, contact.email))
              .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "mail")))
              .pipe(
                Effect.catchTag("IssuedTooSoon", (error) =>
                  SendVerification.sentTooRecently(error, settings.verification.spacing, now)
                )
              )
          } else {
            yield* SendSms.send({
              user,
              purpose: "confirmation",
              otpType: "confirmation",
              to: contact.phone,
              channel,
              now
            })
          }
          return yield* users
            .update(user.id, { confirmationSentAt: Option.some(now) }, now)
            .pipe(Effect.catchAll(() => new AuthError.UserNotSaved({ write: "update" })))
        })
      )

    /** The confirmation's share of RATE_LIMIT_EMAIL_SENT or RATE_LIMIT_SMS_SENT, before its transaction. */
    const quota = Effect.gen(function* () {
      if (contact._tag === "email") yield* SendVerification.takeMailQuota(1, now)
      else yield* SendVerification.takeTextQuota(contact.phone, now)
    })

    const duplicate = (user: User) =>
      Effect.gen(function* () {
        const confirmed =
          provider === "email" ? Option.isSome(user.emailConfirmedAt) : Option.isSome(user.phoneConfirmedAt)
        if (!confirmed) {
          // Supabase Auth answers with the unconfirmed user as it is, its confirmation sent
          // again (once per SMTP_MAX_FREQUENCY or SMS_MAX_FREQUENCY).
          const resent = autoconfirm ? user : yield* Effect.zipRight(quota, confirm(user))
          return { _tag: "Created", user: resent, identities: yield* users.identitiesOf(user.id) } as const
        }
        if (settings.mailerAutoconfirm || settings.smsAutoconfirm) {
          return yield* new AuthError.UserAlreadyRegistered()
        }
        return {
          _tag: "Created",
          user: fauxUser(contact, request.data, settings.audience, yield* secrets.uuid, now),
          identities: []
        } as const
      })

    if (Option.isSome(existing)) return yield* duplicate(existing.value)

    // An address or number to confirm gets its message, written with the user: both or neither.
    const created = NewUser.user({
      id: NewUser.newUserId(yield* secrets.uuid),
      aud: settings.audience,
      contact,
      data: request.data,
      confirmed: autoconfirm,
      now
    })
    const user = autoconfirm ? created : new User({ ...created, confirmationSentAt: Option.some(now) }, true)
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* secrets.uuid),
      user,
      provider,
      data: request.data,
      now
    })
    const stored = users.insert(user, [identity], Option.some(passwordHash))
    if (!autoconfirm) yield* quota
    // By email, the user, the token and the mail go in one write (Enrolments).
    const inserted = autoconfirm
      ? yield* Effect.either(stored)
      : contact._tag === "email"
        ? yield* Effect.either(
            SendVerification.prepare(mailed(user, contact.email)).pipe(
              Effect.flatMap((prepared) =>
                SendVerification.write(prepared, {
                  identities: [identity],
                  passwordHash: Option.some(passwordHash)
                })
              ),
              Effect.asVoid
            )
          )
        : yield* Effect.either(Effect.asVoid(transactions.run(Effect.zipRight(stored, confirm(user)))))
    if (Either.isLeft(inserted)) {
      // The gateway refused the text (the user was not stored): its answer, not a duplicate.
      const refused = inserted.left
      if (
        refused._tag !== "EmailExists" &&
        refused._tag !== "PhoneExists" &&
        refused._tag !== "IdentityExists"
      ) {
        return yield* refused
      }
      // Someone signed up with the same address a moment ago: answered as a duplicate.
      const raced =
        contact._tag === "email"
          ? yield* users.findByEmail(contact.email)
          : yield* users.findByPhone(contact.phone)
      return yield* Option.match(raced, {
        onNone: () => Effect.fail(new AuthError.UserNotSaved({ write: "new" })),
        onSome: duplicate
      })
    }
    yield* Telemetry.annotate("user.id", user.id)
    if (!autoconfirm) return { _tag: "Created", user, identities: [identity] } as const
    const grant = yield* IssueSession.issue(user, "password", request.client, Option.some(identity.id))
    return { _tag: "SignedIn", grant } as const
  })
)
