import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Identity } from "../../../domain/Identity.js"
import { emailConfirmed, User } from "../../../domain/User.js"
import { PasswordHasher } from "../../ports/PasswordHasher.js"
import { Secrets } from "../../ports/Secrets.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import * as ClientInput from "../ClientInput.js"
import * as NewUser from "../NewUser.js"
import * as PasswordStrength from "../PasswordStrength.js"
import { UserRepository } from "../ports/UserRepository.js"
import type { AdminUserRequest } from "./AdminUserRequest.js"
import * as BanUntil from "./BanUntil.js"

const nilUuid = "00000000-0000-0000-0000-000000000000"

/**
 * POST /admin/users (supabase-js `admin.createUser`): a user with an email, a phone number or
 * both, each with its identity, confirmed when the admin says so, with the password given (or
 * its imported hash), else an unguessable one nobody knows.
 */
export const createUser = Telemetry.fn("admin.CreateUser")((request: AdminUserRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const hasher = yield* PasswordHasher
    const secrets = yield* Secrets
    const aud = request.aud === "" ? settings.audience : request.aud
    if (request.email === "" && request.phone === "") {
      return yield* new AuthError.AdminUserInvalid({ problem: "no_contact" })
    }
    const providers: Array<NewUser.Provider> = []
    const email = request.email === "" ? Option.none() : Option.some(yield* ClientInput.email(request.email))
    if (Option.isSome(email)) {
      if (Option.isSome(yield* users.findByEmail(email.value))) return yield* new AuthError.EmailInUse()
      providers.push("email")
    }
    const phone = request.phone === "" ? Option.none() : Option.some(yield* ClientInput.phone(request.phone))
    if (Option.isSome(phone)) {
      if (Option.isSome(yield* users.findByPhone(phone.value)))
        return yield* new AuthError.PhoneInUseByAnother()
      providers.push("phone")
    }
    if (Option.isSome(request.password) && request.passwordHash !== "") {
      return yield* new AuthError.AdminUserInvalid({ problem: "password_and_hash" })
    }
    let passwordHash: string
    if (request.passwordHash !== "") {
      if (!(yield* hasher.canVerify(request.passwordHash))) {
        return yield* new AuthError.AdminUserInvalid({ problem: "hash_format" })
      }
      passwordHash = request.passwordHash
    } else {
      const given = Option.filter(request.password, (password) => password !== "")
      if (Option.isSome(given)) {
        yield* PasswordStrength.ensure(settings.passwordPolicy, given.value)
      }
      const password = Option.isSome(given) ? given.value : Redacted.value(yield* secrets.token("session"))
      passwordHash = yield* hasher.hash(Redacted.make(password))
    }
    let id = yield* secrets.uuid
    if (request.id !== "") {
      const given = ClientInput.uuid(request.id)
      if (Option.isNone(given)) return yield* new AuthError.AdminUserInvalid({ problem: "id_not_uuid" })
      if (given.value === nilUuid) return yield* new AuthError.AdminUserInvalid({ problem: "id_nil" })
      id = given.value
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const bannedUntil =
      request.banDuration === "" ? Option.none() : yield* BanUntil.parse(request.banDuration, now)
    const made = new User({
      id: NewUser.newUserId(id),
      aud,
      role: request.role.trim() === "" ? "authenticated" : request.role.trim(),
      email,
      phone,
      emailConfirmedAt: Option.none(),
      phoneConfirmedAt: Option.isSome(phone) && request.phoneConfirm ? Option.some(now) : Option.none(),
      confirmationSentAt: Option.none(),
      invitedAt: Option.none(),
      lastSignInAt: Option.none(),
      // Supabase Auth merges the given app_metadata over the providers it derived.
      appMetadata: {
        provider: providers[0],
        providers,
        ...Option.getOrElse(request.appMetadata, () => ({}))
      },
      userMetadata: { ...Option.getOrElse(request.userMetadata, () => ({})) },
      isAnonymous: false,
      bannedUntil,
      createdAt: now,
      updatedAt: now
    })
    const user =
      Option.isSome(email) && request.emailConfirm
        ? new User({ ...made, ...emailConfirmed(made.userMetadata, now) })
        : made
    const identities: Array<Identity> = []
    for (const provider of providers) {
      identities.push(
        NewUser.identity({ id: NewUser.newIdentityId(yield* secrets.uuid), user, provider, data: {}, now })
      )
    }
    yield* users.insert(user, identities, Option.some(passwordHash)).pipe(
      Effect.catchTags({
        EmailExists: () => Effect.fail(new AuthError.EmailInUse()),
        PhoneExists: () => Effect.fail(new AuthError.PhoneInUseByAnother()),
        IdentityExists: () => Effect.fail(new AuthError.EmailInUse())
      })
    )
    yield* Telemetry.annotate("user.id", user.id)
    return { user, identities }
  })
)
