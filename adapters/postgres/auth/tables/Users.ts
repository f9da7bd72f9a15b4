import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { EmailExists, PhoneExists } from "../../../../application/auth/ports/UserRepository.js"
import type { Identity } from "../../../../domain/Identity.js"
import { User } from "../../../../domain/User.js"
import * as Identities from "./Identities.js"
import { JsonObject } from "./JsonColumns.js"

/**
 * The `users` table (Supabase Auth's `auth.users`): its columns as `User` reads them, its row
 * codec both ways, and what its unique violations mean.
 */

/**
 * The columns of `User`, under its field names (rows come back camel-cased). The JSON columns
 * come as text: the client camel-cases the keys of every object in a row, and metadata keys
 * (`full_name`) are the user's own, to be returned as they were given.
 */
export const columns = `id, aud, role, email, phone, email_confirmed_at, phone_confirmed_at,
  confirmation_sent_at, invited_at, last_sign_in_at, raw_app_meta_data::text AS app_metadata,
  raw_user_meta_data::text AS user_metadata, is_anonymous, banned_until, created_at, updated_at,
  email_change, email_change_sent_at, email_change_confirm_status, phone_change, phone_change_sent_at`

export const UserRow = Schema.Struct({ ...User.fields, appMetadata: JsonObject, userMetadata: JsonObject })
// Decoded by UserRow already: the class is not asked to validate the same fields again.
export const toUser = (row: typeof UserRow.Type) => new User(row, true)

const encodeUser = Schema.encodeSync(User)

/**
 * The fields of a user as columns (under their field names), for INSERT and UPDATE alike. The
 * metadata go as JSON text: the client camel-cases the keys of objects, and metadata keys are
 * the user's own.
 */
export const row = (user: User) => {
  const encoded = encodeUser(user)
  return {
    aud: encoded.aud,
    role: encoded.role,
    email: encoded.email,
    phone: encoded.phone,
    emailConfirmedAt: encoded.emailConfirmedAt,
    phoneConfirmedAt: encoded.phoneConfirmedAt,
    confirmationSentAt: encoded.confirmationSentAt,
    invitedAt: encoded.invitedAt,
    lastSignInAt: encoded.lastSignInAt,
    rawAppMetaData: JSON.stringify(encoded.appMetadata),
    rawUserMetaData: JSON.stringify(encoded.userMetadata),
    isAnonymous: encoded.isAnonymous,
    bannedUntil: encoded.bannedUntil,
    createdAt: encoded.createdAt,
    updatedAt: encoded.updatedAt,
    // Left out of the encoded user when none.
    emailChange: encoded.emailChange ?? null,
    emailChangeSentAt: encoded.emailChangeSentAt ?? null,
    emailChangeConfirmStatus: encoded.emailChangeConfirmStatus,
    phoneChange: encoded.phoneChange ?? null,
    phoneChangeSentAt: encoded.phoneChangeSentAt ?? null
  }
}

/** The row of a new user: `row`, their id and their password's hash. */
export const insertRow = (user: User, passwordHash: Option.Option<string>) => ({
  id: user.id,
  ...row(user),
  encryptedPassword: Option.getOrNull(passwordHash)
})

/** The columns `insertRow` fills; the rest keep their defaults. */
export const insertColumns = [
  "id",
  "aud",
  "role",
  "email",
  "phone",
  "encrypted_password",
  "email_confirmed_at",
  "phone_confirmed_at",
  "confirmation_sent_at",
  "invited_at",
  "last_sign_in_at",
  "raw_app_meta_data",
  "raw_user_meta_data",
  "is_anonymous",
  "banned_until",
  "created_at",
  "updated_at",
  "email_change",
  "email_change_sent_at",
  "email_change_confirm_status",
  "phone_change",
  "phone_change_sent_at"
] as const

/** The columns `row` gives as JSON text. */
export const jsonColumns = ["raw_app_meta_data", "raw_user_meta_data"] as const

// Constraint names carry the namespace prefix, so they are matched by their ending.

/** The user's address or number taken, when `constraint` is the one that says so. */
export const conflict = (user: User, constraint: string): Option.Option<EmailExists | PhoneExists> => {
  if (constraint.endsWith("users_email_partial_key") && Option.isSome(user.email)) {
    return Option.some(new EmailExists({ email: user.email.value }))
  }
  if (constraint.endsWith("users_phone_key") && Option.isSome(user.phone)) {
    return Option.some(new PhoneExists({ phone: user.phone.value }))
  }
  return Option.none()
}

/** What inserting a user with identities can break: the first of their conflicts `constraint` names. */
export const insertConflict = (user: User, identities: ReadonlyArray<Identity>, constraint: string) =>
  Option.orElse(conflict(user, constraint), () =>
    Option.firstSomeOf(identities.map((identity) => Identities.conflict(identity, constraint)))
  )
