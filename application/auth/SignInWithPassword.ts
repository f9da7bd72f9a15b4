import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Ban from "../../domain/Ban.js"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"
import { Email, parsePhone, type User } from "../../domain/User.js"
import { PasswordHasher } from "../ports/PasswordHasher.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import { UserRepository } from "./ports/UserRepository.js"

/** `POST /token?grant_type=password`, as decoded from the body (`""` when absent). */
export interface PasswordGrantRequest {
  readonly email: string
  readonly phone: string
  readonly password: string
  readonly client: IssueSession.Client
}

export interface PasswordGrant {
  readonly grant: IssueSession.Grant
  /** The password works but no longer meets the policy: Supabase Auth's `weak_password` field. */
  readonly weakPassword: Option.Option<PasswordPolicy.WeakPassword>
}

const decodeEmail = Schema.decodeUnknownOption(Email)

/**
 * The user a sign-in names. An address that is not one (a malformed email, digits that cannot be
 * a phone number) names nobody: the answer is the same as for an unknown user, as Supabase
 * Auth's is.
 */
const find = (request: PasswordGrantRequest) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    if (request.email !== "") {
      return yield* Option.match(decodeEmail(request.email), {
        onNone: () => Effect.succeedNone,
        onSome: users.findByEmail
      })
    }
    return yield* Either.match(parsePhone(request.phone), {
      onLeft: () => Effect.succeedNone,
      onRight: users.findByPhone
    })
  })

/**
 * Sign-in with a password. Whether the user exists, has a password or typed the right one, the
 * answer is `invalid_credentials` and costs one password verification. A ban is told only to
 * whoever knows the password (Supabase Auth tells it before checking; docs/compatibility.md).
 */
export const signInWithPassword = Telemetry.fn("SignInWithPassword.signInWithPassword")(
  (request: PasswordGrantRequest) =>
    Effect.gen(function* () {
      const settings = yield* AuthSettings
      if (request.email !== "" && request.phone !== "") {
        return yield* new AuthError.EmailAndPhoneGiven({ at: "login" })
      }
      if (request.email !== "") {
        if (!settings.emailEnabled) return yield* new AuthError.EmailLoginsDisabled()
      } else if (request.phone !== "") {
        if (!settings.phoneEnabled) return yield* new AuthError.PhoneLoginsDisabled()
      } else {
        return yield* new AuthError.LoginWithoutContact()
      }
      const users = yield* UserRepository
      const hasher = yield* PasswordHasher
      const password = Redacted.make(request.password)
      const user: Option.Option<User> = yield* find(request)
      const stored = Option.isSome(user)
        ? yield* users.findPasswordHash(user.value.id)
        : Option.none<string>()
      if (Option.isNone(user) || Option.isNone(stored)) {
        yield* hasher.verifyDummy(password)
        return yield* new AuthError.InvalidCredentials()
      }
      const verified = yield* hasher.verify(password, stored.value)
      if (!verified.matches) return yield* new AuthError.InvalidCredentials()
      const now = new Date(yield* Clock.currentTimeMillis)
      if (Ban.isBanned(user.value.bannedUntil, now)) {
        return yield* new AuthError.PasswordGrantUserBanned()
      }
      if (verified.needsRehash) {
        // Imported (bcrypt) or older hashes are replaced by the current kind at a sign-in.
        yield* users
          .setPasswordHash(user.value.id, Option.some(yield* hasher.hash(password)), now)
          .pipe(Effect.ignore)
      }
      if (request.email !== "" && Option.isNone(user.value.emailConfirmedAt)) {
        return yield* new AuthError.EmailNotConfirmed()
      }
      if (request.email === "" && Option.isNone(user.value.phoneConfirmedAt)) {
        return yield* new AuthError.PhoneNotConfirmed()
      }
      yield* Telemetry.annotate("user.id", user.value.id)
      const grant = yield* IssueSession.issue(user.value, "password", request.client)
      const weakPassword = Either.getLeft(PasswordPolicy.check(settings.passwordPolicy, request.password))
      return { grant, weakPassword } satisfies PasswordGrant
    })
)
