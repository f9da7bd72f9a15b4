import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { UserId } from "../../../domain/Ids.js"
import { emailConfirmed, type User } from "../../../domain/User.js"
import { PasswordHasher } from "../../ports/PasswordHasher.js"
import { Secrets } from "../../ports/Secrets.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { AuthSettings } from "../AuthSettings.js"
import * as ClientInput from "../ClientInput.js"
import * as NewUser from "../NewUser.js"
import * as PasswordChange from "../PasswordChange.js"
import * as PasswordStrength from "../PasswordStrength.js"
import { Transactions } from "../ports/Transactions.js"
import { type UserPatch, UserRepository } from "../ports/UserRepository.js"
import * as UserMetadata from "../UserMetadata.js"
import type { AdminUserRequest } from "./AdminUserRequest.js"
import * as BanUntil from "./BanUntil.js"
import * as FindUser from "./FindUser.js"

/**
 * PUT /admin/users/{user_id} (supabase-js `admin.updateUserById`): role, email and phone (with
 * their identities, confirmed when asked; confirming makes an anonymous user permanent),
 * password (the spec applies it only at creation; supabase-js callers rely on it here too, see
 * docs/compatibility.md; it ends every session of the user, as Supabase Auth's does), metadata merged key by key, and `ban_duration`.
 */
export const updateUser = Telemetry.fn("admin.UpdateUser")((id: UserId, request: AdminUserRequest) =>
  Effect.gen(function* () {
    const settings = yield* AuthSettings
    const users = yield* UserRepository
    const hasher = yield* PasswordHasher
    const secrets = yield* Secrets
    const { factors, user } = yield* FindUser.findUser(id)
    const email = request.email === "" ? Option.none() : Option.some(yield* ClientInput.email(request.email))
    const phone = request.phone === "" ? Option.none() : Option.some(yield* ClientInput.phone(request.phone))
    const now = new Date(yield* Clock.currentTimeMillis)
    const bannedUntil =
      request.banDuration === "" ? undefined : yield* BanUntil.parse(request.banDuration, now)
    const password = Option.filter(request.password, (value) => value !== "")
    if (Option.isSome(password)) {
      yield* PasswordStrength.ensure(settings.passwordPolicy, password.value)
    }

    // Made from the user as stored, under its lock: the metadata merges land on what is there.
    const patch = (stored: User): UserPatch => {
      const changes: { -readonly [K in keyof UserPatch]: UserPatch[K] } = {}
      if (request.role.trim() !== "") changes.role = request.role.trim()
      let isAnonymous = stored.isAnonymous
      // Supabase Auth's order: the address confirmed (`email_verified` into the metadata), then
      // the given metadata merged, which may say otherwise.
      let userMetadata = stored.userMetadata
      if (Option.isSome(email)) changes.email = email
      if (request.emailConfirm && (Option.isSome(email) || Option.isSome(stored.email))) {
        const confirmed = emailConfirmed(stored.userMetadata, now)
        changes.emailConfirmedAt = confirmed.emailConfirmedAt
        userMetadata = confirmed.userMetadata
        if (Option.isSome(email)) isAnonymous = false
      }
      if (Option.isSome(phone)) {
        changes.phone = phone
        if (request.phoneConfirm) changes.phoneConfirmedAt = Option.some(now)
        if (request.phoneConfirm) isAnonymous = false
      } else if (request.phoneConfirm && Option.isSome(stored.phone)) {
        changes.phoneConfirmedAt = Option.some(now)
      }
      if (isAnonymous !== stored.isAnonymous) changes.isAnonymous = isAnonymous
      if (Option.isSome(request.appMetadata))
        changes.appMetadata = UserMetadata.merge(stored.appMetadata, request.appMetadata.value)
      if (Option.isSome(request.userMetadata)) {
        userMetadata = UserMetadata.merge(userMetadata, request.userMetadata.value)
      }
      if (userMetadata !== stored.userMetadata) changes.userMetadata = userMetadata
      if (bannedUntil !== undefined) changes.bannedUntil = bannedUntil
      return changes
    }

    const updated = yield* users.update(user.id, patch, now).pipe(
      Effect.catchTags({
        UserNotFound: () => Effect.fail(new AuthError.NoSuchUser()),
        EmailExists: () => Effect.fail(new AuthError.EmailInUse()),
        PhoneExists: () => Effect.fail(new AuthError.PhoneInUse())
      })
    )
    if (Option.isSome(password)) {
      const hash = yield* hasher.hash(Redacted.make(password.value))
      // An administrator's change keeps no session: every one of the user's ends with it.
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(PasswordChange.store(user.id, hash, Option.none(), now))
      ).pipe(Effect.catchTag("UserNotFound", () => Effect.fail(new AuthError.NoSuchUser())))
    }
    // A new email or phone number brings its identity, as sign-up would have made it, or
    // changes the one the user has (whether it is confirmed as asked), as Supabase Auth does.
    const linked = yield* users.identitiesOf(user.id)
    for (const provider of ["email", "phone"] as const) {
      const given: Option.Option<string> = provider === "email" ? email : phone
      if (Option.isNone(given)) continue
      if (linked.some((identity) => identity.provider === provider)) {
        const data =
          provider === "email"
            ? { email: given.value, email_verified: request.emailConfirm }
            : { phone: given.value, phone_verified: request.phoneConfirm }
        yield* users.mergeIdentityData(user.id, provider, data, now)
        continue
      }
      const identity = NewUser.identity({
        id: NewUser.newIdentityId(yield* secrets.uuid),
        user: updated,
        provider,
        data: {},
        now
      })
      yield* users.addIdentity(identity).pipe(Effect.catchAll(() => Effect.void))
    }
    // The factors as read before: nothing here changes them (Supabase Auth answers so too).
    return { user: updated, identities: yield* users.identitiesOf(user.id), factors }
  })
)
