import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Mail from "../../../domain/auth/Mail.js"
import type { Purpose } from "../../../domain/auth/OneTimeToken.js"
import type { Identity } from "../../../domain/Identity.js"
import type { User } from "../../../domain/User.js"
import { PasswordHasher } from "../../ports/PasswordHasher.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import * as ClientInput from "../ClientInput.js"
import * as NewUser from "../NewUser.js"
import * as PasswordStrength from "../PasswordStrength.js"
import { Transactions } from "../ports/Transactions.js"
import { UserRepository } from "../ports/UserRepository.js"
import * as SendVerification from "../SendVerification.js"
import * as UserMetadata from "../UserMetadata.js"

/** POST /admin/generate_link, as decoded (`""` when absent). */
export interface GenerateLinkRequest {
  readonly type: string
  readonly email: string
  /** The address an `email_change_*` link moves the user to. */
  readonly newEmail: string
  readonly password: string
  readonly data: Readonly<Record<string, unknown>>
  readonly redirectTo: string
}

/** What the link is, besides the user it is for: Supabase Auth's fields. */
export interface GeneratedLink {
  readonly user: User
  readonly identities: ReadonlyArray<Identity>
  readonly actionLink: string
  readonly emailOtp: string
  readonly hashedToken: string
  readonly verificationType: string
  readonly redirectTo: string
}

/** What each link type proves, and the mail that would carry it. */
const linkTypes: Record<string, { readonly purpose: Purpose; readonly kind: Mail.Kind }> = {
  signup: { purpose: "confirmation", kind: "confirmation" },
  invite: { purpose: "invite", kind: "invite" },
  magiclink: { purpose: "magic_link", kind: "magic_link" },
  recovery: { purpose: "recovery", kind: "recovery" }
}

/**
 * POST /admin/generate_link (supabase-js `admin.generateLink`): the link and code a mail of the
 * type would carry, issued exactly as for the mail (they replace the user's last ones) but
 * handed to the caller instead of sent — for applications that send their own mail. `signup`
 * and `invite` make the user when the address is nobody's (`signup` with `password`);
 * `magiclink` for nobody's address is a `signup`, as in Supabase Auth; `recovery` needs a user.
 * The email-change types start an email change to `new_email` (EmailChange), one address's link
 * at a time.
 */
export const generateLink = Telemetry.fn("GenerateLink.generateLink")((request: GenerateLinkRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    if (request.type === "email_change_current" || request.type === "email_change_new") {
      return yield* emailChangeLink(request, request.type)
    }
    if (linkTypes[request.type] === undefined) {
      return yield* new AuthError.LinkTypeInvalid({ type: request.type })
    }
    const email = yield* ClientInput.email(request.email)
    const existing = yield* users.findByEmail(email)
    const type = Option.isNone(existing) && request.type === "magiclink" ? "signup" : request.type
    if (Option.isNone(existing) && type === "recovery") {
      return yield* new AuthError.NoUserWithEmail()
    }
    if (
      (type === "invite" || type === "signup") &&
      Option.exists(existing, (user) => Option.isSome(user.emailConfirmedAt))
    ) {
      return yield* new AuthError.EmailInUse()
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const redirectTo = settings.redirectTarget(request.redirectTo)
    const linkFor = (user: User) =>
      SendVerification.prepare({
        user,
        purpose: linkTypes[type]?.purpose ?? "confirmation",
        kind: linkTypes[type]?.kind ?? "confirmation",
        type,
        to: email,
        redirectTo,
        // An administrator's act: not spaced, as in Supabase Auth.
        spacing: Option.none(),
        now
      })
        .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "link")))
        .pipe(Effect.orDie)

    const transactions = yield* Transactions
    let user: User
    let identities: ReadonlyArray<Identity>
    let issued: SendVerification.Issued
    if (Option.isSome(existing)) {
      const found = existing.value
      const stamped = yield* transactions
        .run(
          Effect.gen(function* () {
            // A sign-up link for an unconfirmed user takes the request's data into their
            // metadata, as Supabase Auth's does.
            const current =
              type === "invite"
                ? yield* users.update(found.id, { invitedAt: Option.some(now) }, now)
                : type === "signup" && Object.keys(request.data).length > 0
                  ? yield* users.update(
                      found.id,
                      (stored) => ({ userMetadata: UserMetadata.merge(stored.userMetadata, request.data) }),
                      now
                    )
                  : found
            return { current, issued: yield* linkFor(current) }
          })
        )
        .pipe(
          Effect.catchTags({
            EmailExists: () => new AuthError.EmailInUse(),
            PhoneExists: () => new AuthError.PhoneInUse(),
            UserNotFound: () => new AuthError.NoSuchUser()
          })
        )
      // As written: a recovery or magic link's `recovery_sent_at` shows, as in Supabase Auth.
      user = stamped.issued.user
      issued = stamped.issued
      identities = yield* users.identitiesOf(found.id)
    } else {
      let passwordHash = Option.none<string>()
      // A magic link for nobody's address makes a user without a password (Supabase Auth gives
      // it a random one nobody knows).
      if (type === "signup" && request.type === "signup") {
        if (request.password === "") return yield* new AuthError.SignupWithoutPassword()
        yield* PasswordStrength.ensure(settings.passwordPolicy, request.password)
        passwordHash = Option.some(yield* (yield* PasswordHasher).hash(Redacted.make(request.password)))
      }
      const made = yield* NewUser.ofEmail({
        email,
        aud: settings.audience,
        data: request.data,
        madeBy: "admin",
        stamps: type === "invite" ? { invitedAt: Option.some(now) } : {},
        now
      })
      user = made.user
      const identity = made.identity
      identities = [identity]
      issued = yield* transactions
        .run(Effect.zipRight(users.insert(user, [identity], passwordHash), linkFor(user)))
        .pipe(
          Effect.catchTags({
            EmailExists: () => new AuthError.EmailInUse(),
            PhoneExists: () => new AuthError.PhoneInUse(),
            IdentityExists: () => new AuthError.EmailInUse()
          })
        )
    }
    return {
      user,
      identities,
      actionLink: issued.actionLink,
      emailOtp: Redacted.value(issued.code),
      hashedToken: Redacted.value(issued.link),
      verificationType: type,
      redirectTo
    } satisfies GeneratedLink
  })
)

/**
 * `email_change_current` or `email_change_new`: the user's email change to `new_email` begun,
 * and the link of the one address the type names (Supabase Auth's admin makes the two links
 * separately; a secure change needs both used).
 */
const emailChangeLink = (request: GenerateLinkRequest, type: "email_change_current" | "email_change_new") =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    if (type === "email_change_current" && !settings.verification.secureEmailChange) {
      return yield* new AuthError.CurrentEmailLinkNeedsSecureChange()
    }
    const email = yield* ClientInput.email(request.email)
    const found = yield* users.findByEmail(email)
    if (Option.isNone(found)) {
      return yield* new AuthError.NoUserWithEmail()
    }
    const newEmail = yield* ClientInput.email(request.newEmail)
    if (Option.exists(yield* users.findByEmail(newEmail), (other) => other.id !== found.value.id)) {
      return yield* new AuthError.EmailInUse()
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const redirectTo = settings.redirectTarget(request.redirectTo)
    const transactions = yield* Transactions
    const { user, issued } = yield* transactions
      .run(
        Effect.gen(function* () {
          const user = yield* users.update(
            found.value.id,
            {
              emailChange: Option.some(newEmail),
              emailChangeSentAt: Option.some(now),
              emailChangeConfirmStatus: 0
            },
            now
          )
          const issued = yield* SendVerification.prepare({
            user,
            purpose: type,
            kind: "email_change",
            type: "email_change",
            to: type === "email_change_new" ? newEmail : email,
            redirectTo,
            spacing: Option.none(),
            now
          })
            .pipe(Effect.flatMap((prepared) => SendVerification.write(prepared, "link")))
            .pipe(Effect.orDie)
          return { user, issued }
        })
      )
      .pipe(
        Effect.catchTags({
          EmailExists: () => new AuthError.EmailInUse(),
          PhoneExists: () => new AuthError.PhoneInUse(),
          UserNotFound: () => new AuthError.NoSuchUser()
        })
      )
    return {
      user: issued.user,
      identities: yield* users.identitiesOf(user.id),
      actionLink: issued.actionLink,
      emailOtp: Redacted.value(issued.code),
      hashedToken: Redacted.value(issued.link),
      // The type asked for, as Supabase Auth answers (its link and /verify take `email_change`).
      verificationType: type,
      redirectTo
    } satisfies GeneratedLink
  })
