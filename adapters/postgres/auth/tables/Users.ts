import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { EmailExists, PhoneExists } from "../../../../application/auth/ports/UserRepository.js"
import { Identity } from "../../../../domain/Identity.js"
import { User } from "../../../../domain/User.js"
import type * as BatchedDelete from "../../BatchedDelete.js"
import * as Identities from "./Identities.js"
import { JsonObject } from "./JsonColumns.js"
import * as MfaFactors from "./MfaFactors.js"

/**
 * The `users` table (Supabase Auth's `auth.users`): its columns as `User` reads them, its row
 * codec both ways, its statements, and what its unique violations mean. Statements take the
 * qualified name of a table (`AuthTables.name`) and their values as `$n` parameters; a user is
 * live until soft-deleted (`deleted_at`), and only live users are read or changed, but by the
 * admin API's reads (`accountText`, `pageText`) and its deletes.
 */

type Name = (table: string) => string

/**
 * The columns of `User`, under its field names (rows come back camel-cased), each column that
 * holds an address or a number as `contact` reads it. The JSON columns come as text: the client
 * camel-cases the keys of every object in a row, and metadata keys (`full_name`) are the user's
 * own, to be returned as they were given.
 */
const columnsReading = (contact: (column: string) => string) =>
  `id, aud, role, ${contact("email")}, ${contact("phone")}, email_confirmed_at, phone_confirmed_at,
  confirmation_sent_at, invited_at, last_sign_in_at, raw_app_meta_data::text AS app_metadata,
  raw_user_meta_data::text AS user_metadata, is_anonymous, banned_until, created_at, updated_at,
  ${contact("email_change")}, email_change_sent_at, email_change_confirm_status, ${contact("phone_change")},
  phone_change_sent_at, recovery_sent_at, reauthentication_sent_at`

/** The columns of a live user, as every statement but the admin API's reads them. */
export const columns = columnsReading((column) => column)

/**
 * The columns of a user live or soft-deleted, with `deleted_at`, as the admin API reads them: a
 * soft-deleted user's address, number and pending changes read as none. A soft delete here
 * empties them; Supabase Auth's leaves digests there, which are neither address nor number, and
 * an import brings its rows as they are.
 */
const adminColumns = `${columnsReading((column) => `CASE WHEN deleted_at IS NULL THEN ${column} END AS ${column}`)},
  deleted_at`

export const UserRow = Schema.Struct({ ...User.fields, appMetadata: JsonObject, userMetadata: JsonObject })
// Decoded by UserRow already: the class is not asked to validate the same fields again.
export const toUser = (row: typeof UserRow.Type) => new User(row, true)

/** The live users `condition` picks (on the table's own columns, `$n` parameters). */
export const liveWhereText = (name: Name, condition: string) =>
  `SELECT ${columns} FROM ${name("users")} WHERE ${condition} AND deleted_at IS NULL`

/*
 * The user's row is locked as an UPDATE of it locks it (`FOR NO KEY UPDATE`: its id never
 * changes), not `FOR UPDATE`, which also waits for every transaction holding a row that refers to
 * the user (a flow state, a token, a session just inserted). Two mails of one user at once each
 * inserted such a row, then one waited here for the other, which waited for the first on the
 * token's unique index: a deadlock.
 */

/** $1 user: the live user, locked for a read, merge and write. */
export const lockText = (name: Name) => `${liveWhereText(name, "id = $1")} FOR NO KEY UPDATE`

/** $1 user: the live user's id, locked, so that they stay live while something is added. */
export const lockIdText = (name: Name) =>
  `SELECT id FROM ${name("users")} WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE`

/** $1 user ids: the password hashes of the live ones. */
export const passwordHashesText = (name: Name) =>
  `SELECT id, encrypted_password FROM ${name("users")} WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`

export const PasswordRow = Schema.Struct({
  id: Schema.String,
  encryptedPassword: Schema.NullOr(Schema.String)
})

/**
 * $1 user ids: the live users with their identities, for the requests that arrive together
 * (Batched.ts). The identities come as one JSON array per user, under their field names, so
 * that one statement answers for user and identities; their timestamps are ISO strings there.
 * The user's factors come the same way (`MfaFactors.jsonArrayOf`), null when there are none —
 * nearly every user — so that GET /user lists them for one index probe and no decoding.
 */
export const withIdentitiesText = (name: Name) =>
  `SELECT ${columns}, ${Identities.jsonArrayOf(name, "u.id")} AS identities,
     ${MfaFactors.jsonArrayOf(name, "u.id")} AS factors
   FROM ${name("users")} u WHERE u.id = ANY($1::uuid[]) AND u.deleted_at IS NULL`

/**
 * $1 user: the user, live or soft-deleted (with `deleted_at`), with their identities and
 * factors as `withIdentitiesText` gives them: what the admin API shows of a user.
 */
export const accountText = (name: Name) =>
  `SELECT ${adminColumns}, ${Identities.jsonArrayOf(name, "u.id")} AS identities,
     ${MfaFactors.jsonArrayOf(name, "u.id")} AS factors
   FROM ${name("users")} u WHERE u.id = $1`

export const WithIdentitiesRow = Schema.Struct({
  ...UserRow.fields,
  identities: Identities.IdentitiesJson,
  factors: MfaFactors.FactorsJson
})

/** A user with their identities and factors, from a row of `WithIdentitiesRow`'s fields. */
export const toAccountOfRow = ({ identities, factors, ...user }: typeof WithIdentitiesRow.Type) => ({
  user: toUser(user),
  identities: identities.map(Identities.toIdentity),
  factors: MfaFactors.toFactors(factors)
})

/** A user with their identities, from a row of `WithIdentitiesRow`'s fields. */
export const toWithIdentities = (row: typeof WithIdentitiesRow.Type) => {
  const { user, identities } = toAccountOfRow(row)
  return { user, identities }
}

/**
 * The live user whose id is `userId` (an expression), with their identities and factors (the
 * factors null when there are none: one index probe), as one JSON object in text
 * (`AccountJson`): null when there is none. A subquery, so that a statement about
 * something else (a session's rotation) answers for the user too.
 */
export const accountJsonOf = (name: Name, userId: string) =>
  `(SELECT json_build_object(
      'user', json_build_object(
        'id', a.id, 'aud', a.aud, 'role', a.role, 'email', a.email, 'phone', a.phone,
        'emailConfirmedAt', a.email_confirmed_at, 'phoneConfirmedAt', a.phone_confirmed_at,
        'confirmationSentAt', a.confirmation_sent_at, 'invitedAt', a.invited_at,
        'lastSignInAt', a.last_sign_in_at, 'appMetadata', a.raw_app_meta_data,
        'userMetadata', a.raw_user_meta_data, 'isAnonymous', a.is_anonymous,
        'bannedUntil', a.banned_until, 'createdAt', a.created_at, 'updatedAt', a.updated_at,
        'emailChange', a.email_change, 'emailChangeSentAt', a.email_change_sent_at,
        'emailChangeConfirmStatus', a.email_change_confirm_status, 'phoneChange', a.phone_change,
        'phoneChangeSentAt', a.phone_change_sent_at, 'recoverySentAt', a.recovery_sent_at,
        'reauthenticationSentAt', a.reauthentication_sent_at),
      'identities', ${Identities.jsonArrayOf(name, "a.id")}::json,
      'factors', ${MfaFactors.jsonOf(name, "a.id")})
    FROM ${name("users")} a WHERE a.id = ${userId} AND a.deleted_at IS NULL)::text`

/**
 * A user with their identities and factors as `accountJsonOf` gives them (timestamps as ISO
 * strings; `factors` null when there are none).
 */
export const AccountJson = Schema.parseJson(
  Schema.Struct({
    user: Schema.Struct(User.fields),
    identities: Schema.Array(Schema.Struct(Identity.fields)),
    factors: MfaFactors.FactorsArray
  })
)

/** A user with their identities and factors, from `AccountJson`. */
export const toAccount = (account: typeof AccountJson.Type) => ({
  // Decoded field by field already: the classes are not asked to validate them again.
  user: new User(account.user, true),
  identities: account.identities.map(Identities.toIdentity),
  factors: MfaFactors.toFactors(account.factors)
})

/**
 * `recordSignIn` for the sign-ins that arrive together (Batched.ts): each input is one element
 * of the arrays — $1 user, $2 the identity used (null: none), $3 now — and `position` says
 * which input a row answers. The identities are read as the stamp leaves them (the statement's
 * own reads see the rows as they were, hence the stamp's time taken from `touched`).
 */
export const recordSignInsText = (name: Name) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[])
       WITH ORDINALITY AS i(user_id, identity_id, signed_in_at, position)
   ), stamped AS (
     UPDATE ${name("users")} u SET last_sign_in_at = i.signed_in_at, updated_at = i.signed_in_at
     FROM input i WHERE u.id = i.user_id AND u.deleted_at IS NULL RETURNING u.id
   ), touched AS (
     UPDATE ${name("identities")} d SET last_sign_in_at = i.signed_in_at, updated_at = i.signed_in_at
     FROM input i
     WHERE d.id = i.identity_id AND d.user_id = i.user_id AND i.user_id IN (SELECT id FROM stamped)
     RETURNING d.id, i.signed_in_at
   )
   SELECT i.position, (i.user_id IN (SELECT id FROM stamped)) AS stamped,
     ${Identities.jsonArrayOf(name, "i.user_id", (d) => `(SELECT t.signed_in_at FROM touched t WHERE t.id = ${d}.id LIMIT 1)`)} AS identities,
     ${MfaFactors.jsonArrayOf(name, "i.user_id")} AS factors
   FROM input i`

/**
 * What `recordSignInsText` answers for an input: whether the user was stamped, their
 * identities, and their factors (null, for one index probe, when they have none).
 */
export const SignInsRow = Schema.Struct({
  position: Schema.NumberFromString,
  stamped: Schema.Boolean,
  identities: Identities.IdentitiesJson,
  factors: MfaFactors.FactorsJson
})

/** $1 user, $2 the hash (null: none), $3 now: returns the id of the live user changed. */
export const setPasswordHashText = (name: Name) =>
  `UPDATE ${name("users")} SET encrypted_password = $2, updated_at = $3
   WHERE id = $1 AND deleted_at IS NULL RETURNING id`

/** $1 user, $2 the new hash, $3 now: returns the id of the live user changed. */
export const changePasswordText = (name: Name) =>
  `UPDATE ${name("users")} SET encrypted_password = $2, updated_at = $3, confirmation_sent_at = NULL,
     recovery_sent_at = NULL, email_change_sent_at = NULL, phone_change_sent_at = NULL,
     reauthentication_sent_at = NULL
   WHERE id = $1 AND deleted_at IS NULL RETURNING id`

/**
 * $1 user, $2 now: Supabase Auth's soft delete of a live user, what identifies the person
 * cleared; returns the id of the user deleted.
 */
export const softDeleteText = (name: Name) =>
  `UPDATE ${name("users")}
   SET email = NULL, phone = NULL, encrypted_password = NULL, email_change = NULL,
       phone_change = NULL, raw_app_meta_data = '{}'::jsonb,
       raw_user_meta_data = '{}'::jsonb, deleted_at = $2, updated_at = $2
   WHERE id = $1 AND deleted_at IS NULL RETURNING id`

/** $1 user: the id of the user when they were soft-deleted. */
export const softDeletedText = (name: Name) =>
  `SELECT id FROM ${name("users")} WHERE id = $1 AND deleted_at IS NOT NULL`

/**
 * $1 user: deletes the user, live or soft-deleted (their identities, sessions and tokens go
 * with the row).
 */
export const deleteText = (name: Name) => `DELETE FROM ${name("users")} WHERE id = $1 RETURNING id`

/**
 * $1 a creation cutoff, $2 the batch size: anonymous users made before $1, soft-deleted or
 * not (Supabase Auth's cleanup asks no more), found through `users_is_anonymous_idx`.
 */
export const anonymousBatch = (name: Name): BatchedDelete.Batch => ({
  table: name("users"),
  key: "id",
  where: "candidate.is_anonymous AND candidate.created_at < $1",
  limit: "$2"
})

/**
 * The admin list's filter: Supabase Auth's two columns, both without case here (emails are
 * stored lower-cased), matched by `likePattern` as $2 when `filtered`.
 */
const matching = (filtered: boolean) =>
  filtered ? "AND (email ILIKE $2 OR raw_user_meta_data ->> 'full_name' ILIKE $2)" : ""

/**
 * A filter as a LIKE pattern: its own `%`, `_` and `\` escaped with a backslash, LIKE's
 * escape character, so that they match themselves.
 */
export const likePattern = (filter: string) => `%${filter.replace(/[\\%_]/g, "\\$&")}%`

/**
 * $1 audience (and $2 the pattern when `filtered`): how many users the list has, soft-deleted
 * ones among them.
 */
export const countText = (name: Name, filtered: boolean) =>
  `SELECT count(*)::int AS total FROM ${name("users")} WHERE aud = $1 ${matching(filtered)}`

export const CountRow = Schema.Struct({ total: Schema.Number })

/**
 * $1 audience, ($2 the pattern when `filtered`), then the page's size and offset: one page of
 * the list, soft-deleted users among the others (with `deleted_at`). A substring has no index
 * to use: the page still walks the (aud, created_at, id) index in order and stops when it is
 * full.
 */
export const pageText = (name: Name, order: "asc" | "desc", filtered: boolean) => {
  const direction = order === "asc" ? "ASC" : "DESC"
  const next = filtered ? 3 : 2
  return `SELECT ${adminColumns} FROM ${name("users")} WHERE aud = $1 ${matching(filtered)}
   ORDER BY created_at ${direction}, id ${direction}
   LIMIT $${next} OFFSET $${next + 1}`
}

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
    phoneChangeSentAt: encoded.phoneChangeSentAt ?? null,
    recoverySentAt: encoded.recoverySentAt ?? null,
    reauthenticationSentAt: encoded.reauthenticationSentAt ?? null
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
  "phone_change_sent_at",
  "recovery_sent_at",
  "reauthentication_sent_at"
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
