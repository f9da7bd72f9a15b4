import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserNotFound, UserRepository } from "../../../application/auth/ports/UserRepository.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as PendingChange from "../../../domain/auth/PendingChange.js"
import { Identity } from "../../../domain/Identity.js"
import type { IdentityId, UserId } from "../../../domain/Ids.js"
import { User } from "../../../domain/User.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import * as UniqueViolation from "../UniqueViolation.js"
import { AuthTables } from "./AuthTables.js"
import * as Identities from "./tables/Identities.js"
import * as Users from "./tables/Users.js"

const { toUser, UserRow } = Users
const { IdentitiesJson, IdentityRow } = Identities
const userColumns = Users.columns
const identityColumns = Identities.columns

/**
 * $1 user ids: the users with their identities, for the requests that arrive together
 * (Batched.ts). The identities come as one JSON array per user, under their field names, so
 * that one statement answers for user and identities; their timestamps are ISO strings there.
 */
const findWithIdentitiesText = (users: string, identities: string) =>
  `SELECT ${userColumns},
     (SELECT coalesce(json_agg(json_build_object(
        'id', i.id, 'userId', i.user_id, 'provider', i.provider, 'providerId', i.provider_id,
        'identityData', i.identity_data, 'email', i.email, 'createdAt', i.created_at,
        'updatedAt', i.updated_at, 'lastSignInAt', i.last_sign_in_at) ORDER BY i.created_at, i.id), '[]')
      FROM ${identities} i WHERE i.user_id = u.id)::text AS identities
   FROM ${users} u WHERE u.id = ANY($1::uuid[]) AND u.deleted_at IS NULL`

const WithIdentitiesRow = Schema.Struct({ ...UserRow.fields, identities: IdentitiesJson })

const PasswordRow = Schema.Struct({ id: Schema.String, encryptedPassword: Schema.NullOr(Schema.String) })

const CountRow = Schema.Struct({ total: Schema.Number })

/**
 * `recordSignIn` for the sign-ins that arrive together (Batched.ts): each input is one element
 * of the arrays — $1 user, $2 the identity used (null: none), $3 now — and `position` says
 * which input a row answers. The identities are read as the stamp leaves them (the statement's
 * own reads see the rows as they were, hence the stamp's time taken from `touched`).
 */
const recordSignInsText = (users: string, identities: string) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[])
       WITH ORDINALITY AS i(user_id, identity_id, signed_in_at, position)
   ), stamped AS (
     UPDATE ${users} u SET last_sign_in_at = i.signed_in_at, updated_at = i.signed_in_at
     FROM input i WHERE u.id = i.user_id AND u.deleted_at IS NULL RETURNING u.id
   ), touched AS (
     UPDATE ${identities} d SET last_sign_in_at = i.signed_in_at, updated_at = i.signed_in_at
     FROM input i
     WHERE d.id = i.identity_id AND d.user_id = i.user_id AND i.user_id IN (SELECT id FROM stamped)
     RETURNING d.id, i.signed_in_at
   )
   SELECT i.position, (i.user_id IN (SELECT id FROM stamped)) AS stamped,
     (SELECT coalesce(json_agg(json_build_object(
        'id', d.id, 'userId', d.user_id, 'provider', d.provider, 'providerId', d.provider_id,
        'identityData', d.identity_data, 'email', d.email, 'createdAt', d.created_at,
        'updatedAt', coalesce((SELECT t.signed_in_at FROM touched t WHERE t.id = d.id LIMIT 1), d.updated_at),
        'lastSignInAt', coalesce((SELECT t.signed_in_at FROM touched t WHERE t.id = d.id LIMIT 1), d.last_sign_in_at))
        ORDER BY d.created_at, d.id), '[]')
      FROM ${identities} d WHERE d.user_id = i.user_id)::text AS identities
   FROM input i`

/** What `recordSignIns` answers for an input: whether the user was stamped, and their identities. */
const SignInsRow = Schema.Struct({
  position: Schema.NumberFromString,
  stamped: Schema.Boolean,
  identities: IdentitiesJson
})

interface SignIn {
  readonly id: UserId
  readonly identity: Option.Option<IdentityId>
  readonly now: Date
}

export const layer = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const tables = yield* AuthTables
    const users = sql(tables.name("users"))
    const identitiesTable = sql(tables.name("identities"))
    const sessions = sql(tables.name("sessions"))
    const refreshTokens = sql(tables.name("refresh_tokens"))
    const insertIdentity = (identity: Identity) =>
      sql`INSERT INTO ${identitiesTable} ${sql.insert(Identities.row(identity))}`

    const findUser = (where: Statement.Fragment) =>
      sql`SELECT ${sql.literal(userColumns)} FROM ${users} WHERE ${where} AND deleted_at IS NULL`.pipe(
        decodeFirst(UserRow),
        Effect.map(Option.map(toUser))
      )

    // A live user by id, address or number: every sign-in starts with one of these reads, which
    // the requests arriving together share (SharedStatements.ts).
    const usersWhere = (name: string, condition: string) =>
      Prepared.statement(
        `auth_find_users_by_${name}_${tables.prefix}`,
        `SELECT ${userColumns} FROM ${tables.name("users")} WHERE ${condition} AND deleted_at IS NULL`
      )
    const sharedById = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: usersWhere("id", "id = ANY($1::uuid[])"),
      row: UserRow,
      // PostgreSQL writes uuids in lower case; a caller's may come in either.
      keyOf: (row): string => row.id
    })
    const byAddress = (column: "email" | "phone") =>
      SharedStatements.lookup({
        sql,
        pool,
        statement: usersWhere(column, `${column} = ANY($1::text[]) AND is_sso_user = false`),
        row: UserRow,
        keyOf: (row): string | undefined =>
          column === "email" ? Option.getOrUndefined(row.email) : Option.getOrUndefined(row.phone)
      })
    const sharedByEmail = yield* byAddress("email")
    const sharedByPhone = yield* byAddress("phone")
    const sharedPasswordHash = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_find_password_hashes_${tables.prefix}`,
        `SELECT id, encrypted_password FROM ${tables.name("users")}
         WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`
      ),
      row: PasswordRow,
      keyOf: (row): string => row.id
    })
    const userOf = (found: Effect.Effect<Option.Option<typeof UserRow.Type>>) =>
      Effect.map(found, Option.map(toUser))

    const findWithIdentitiesStatement = Prepared.statement(
      `auth_find_with_identities_${tables.prefix}`,
      findWithIdentitiesText(tables.name("users"), tables.name("identities"))
    )
    const sharedWithIdentities = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: findWithIdentitiesStatement,
      row: WithIdentitiesRow,
      keyOf: (row): string => row.id
    })
    const findWithIdentities = (id: UserId) =>
      Effect.map(
        sharedWithIdentities(id),
        Option.map(({ identities, ...user }) => ({
          user: toUser(user),
          // Decoded field by field already: the classes are not asked to validate again.
          identities: identities.map((identity) => new Identity(identity, true))
        }))
      )

    const notFound = (id: UserId) => new UserNotFound({ userId: id })

    // Every sign-in ends with one: those arriving together share the statement.
    const recordSignIns = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_record_sign_ins_${tables.prefix}`,
        recordSignInsText(tables.name("users"), tables.name("identities"))
      ),
      parameters: (signIns: ReadonlyArray<SignIn>) => [
        signIns.map((signIn) => signIn.id),
        signIns.map((signIn) => Option.getOrNull(signIn.identity)),
        signIns.map((signIn) => signIn.now)
      ],
      row: SignInsRow,
      answers: (rows, signIns) => {
        const byPosition = new Map(rows.map((row) => [row.position, row]))
        return signIns.map((_, i) => {
          const row = byPosition.get(i + 1)
          return row === undefined || !row.stamped
            ? Option.none()
            : Option.some(row.identities.map((fields) => new Identity(fields, true)))
        })
      }
    })

    /** Runs a statement that changes a live user and returns its id; UserNotFound when none. */
    const changeLive = (id: UserId, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      statement.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(notFound(id)) : Effect.void))
      )

    return {
      insert: Telemetry.fn("UserRepositoryPg.insert")(
        (user, identities, passwordHash) => {
          if (identities.some((identity) => identity.userId !== user.id)) {
            return Effect.dieMessage("an identity inserted with a user must belong to it")
          }
          const userInsert = sql`INSERT INTO ${users} ${sql.insert({
            id: user.id,
            ...Users.row(user),
            encryptedPassword: Option.getOrNull(passwordHash)
          })}`
          // The user and their identities in one statement, atomic on its own: one round trip
          // where a transaction (or, inside the caller's, a savepoint) took four or more. The
          // identities' reference to the user is checked at the end of the statement.
          const statement =
            identities.length === 0
              ? userInsert
              : sql`WITH inserted AS (${userInsert})
                    INSERT INTO ${identitiesTable} ${sql.insert(identities.map(Identities.row))}`
          return statement.pipe(
            Effect.asVoid,
            Effect.catchTag(
              "SqlError",
              UniqueViolation.failOn((constraint) => Users.insertConflict(user, identities, constraint))
            )
          )
        },
        (user) => ({ "user.id": user.id })
      ),
      addIdentity: Telemetry.fn("UserRepositoryPg.addIdentity")(
        (identity) =>
          Effect.gen(function* () {
            const live =
              yield* sql`SELECT id FROM ${users} WHERE id = ${identity.userId} AND deleted_at IS NULL FOR UPDATE`
            if (live.length === 0) return yield* Effect.fail(notFound(identity.userId))
            yield* insertIdentity(identity)
          }).pipe(
            sql.withTransaction,
            Effect.catchTag(
              "SqlError",
              UniqueViolation.failOn((constraint) => Identities.conflict(identity, constraint))
            )
          ),
        (identity) => ({ "user.id": identity.userId })
      ),
      findById: Telemetry.fn("UserRepositoryPg.findById")(
        (id) => userOf(sharedById(id.toLowerCase())),
        (id) => ({ "user.id": id })
      ),
      findByEmail: Telemetry.fn("UserRepositoryPg.findByEmail")((email) => userOf(sharedByEmail(email))),
      findByPhone: Telemetry.fn("UserRepositoryPg.findByPhone")((phone) => userOf(sharedByPhone(phone))),
      findByPendingEmail: Telemetry.fn("UserRepositoryPg.findByPendingEmail")((email) =>
        findUser(sql`email_change = ${email} AND is_sso_user = false`)
      ),
      findByPendingPhone: Telemetry.fn("UserRepositoryPg.findByPendingPhone")((phone) =>
        findUser(sql`phone_change = ${phone} AND is_sso_user = false`)
      ),
      findByIdentity: Telemetry.fn("UserRepositoryPg.findByIdentity")((provider, providerId) =>
        Effect.gen(function* () {
          const identity = yield* sql`
            SELECT ${sql.literal(identityColumns)} FROM ${identitiesTable}
            WHERE provider = ${provider} AND provider_id = ${providerId}`.pipe(
            decodeFirst(IdentityRow),
            Effect.map(Option.map((row) => new Identity(row, true)))
          )
          if (Option.isNone(identity)) return Option.none()
          const user = yield* findUser(sql`id = ${identity.value.userId}`)
          return Option.map(user, (found) => ({ user: found, identity: identity.value }))
        })
      ),
      refreshIdentity: Telemetry.fn("UserRepositoryPg.refreshIdentity")((id, data, now) =>
        sql`UPDATE ${identitiesTable} i
            SET identity_data = ${JSON.stringify(data)}::jsonb, updated_at = ${now}, last_sign_in_at = ${now}
            WHERE i.id = ${id}
              AND EXISTS (SELECT 1 FROM ${users} u WHERE u.id = i.user_id AND u.deleted_at IS NULL)`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
      ),
      removeIdentity: Telemetry.fn("UserRepositoryPg.removeIdentity")((userId, identityId) =>
        sql`DELETE FROM ${identitiesTable} WHERE id = ${identityId} AND user_id = ${userId} RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length > 0)
        )
      ),
      identitiesOf: Telemetry.fn("UserRepositoryPg.identitiesOf")(
        (id) =>
          sql`SELECT ${sql.literal(identityColumns)} FROM ${identitiesTable} i
              WHERE user_id = ${id}
                AND EXISTS (SELECT 1 FROM ${users} u WHERE u.id = i.user_id AND u.deleted_at IS NULL)
              ORDER BY created_at, id`.pipe(
            decodeAll(IdentityRow),
            Effect.map((rows) => rows.map((row) => new Identity(row, true)))
          ),
        (id) => ({ "user.id": id })
      ),
      findWithIdentities: Telemetry.fn("UserRepositoryPg.findWithIdentities")(
        (id) => findWithIdentities(id),
        (id) => ({ "user.id": id })
      ),
      findPasswordHash: Telemetry.fn("UserRepositoryPg.findPasswordHash")(
        (id) =>
          Effect.map(
            sharedPasswordHash(id.toLowerCase()),
            Option.flatMap((row) => Option.fromNullable(row.encryptedPassword))
          ),
        (id) => ({ "user.id": id })
      ),
      // Read, merge and write under the row's lock, so that concurrent updates of different
      // fields all land.
      update: Telemetry.fn("UserRepositoryPg.update")(
        (id, patch, now) =>
          Effect.gen(function* () {
            const stored = yield* sql`
              SELECT ${sql.literal(userColumns)} FROM ${users}
              WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`.pipe(
              decodeFirst(UserRow),
              Effect.map(Option.map(toUser))
            )
            if (Option.isNone(stored)) return yield* notFound(id)
            const user = new User({ ...stored.value, ...patch, updatedAt: now })
            yield* sql`UPDATE ${users} SET ${sql.update(Users.row(user))} WHERE id = ${id}`.pipe(
              Effect.catchTag(
                "SqlError",
                UniqueViolation.failOn((constraint) => Users.conflict(user, constraint))
              )
            )
            return user
          }).pipe(
            sql.withTransaction,
            // Only the unique violations were turned into errors above: anything else is a defect.
            Effect.catchTag("SqlError", Effect.die)
          ),
        (id) => ({ "user.id": id })
      ),
      confirmChange: Telemetry.fn("UserRepositoryPg.confirmChange")(
        ({ userId, field, needed, identity, now }) =>
          Effect.gen(function* () {
            const stored = yield* sql`
              SELECT ${sql.literal(userColumns)} FROM ${users}
              WHERE id = ${userId} AND deleted_at IS NULL FOR UPDATE`.pipe(
              decodeFirst(UserRow),
              Effect.map(Option.map(toUser))
            )
            if (Option.isNone(stored)) return yield* notFound(userId)
            const decision = PendingChange.confirm(stored.value, field, needed, now)
            if (decision._tag === "NothingPending") return decision
            const user = decision.user
            yield* sql`UPDATE ${users} SET ${sql.update(Users.row(user))} WHERE id = ${userId}`.pipe(
              Effect.catchTag(
                "SqlError",
                UniqueViolation.failOn((constraint) => Users.conflict(user, constraint))
              )
            )
            if (decision._tag === "Waiting") return { _tag: "Waiting" } as const
            const merged = yield* sql`
              UPDATE ${identitiesTable}
              SET identity_data = identity_data || ${JSON.stringify(identity.identityData)}::jsonb,
                  updated_at = ${now}
              WHERE user_id = ${userId} AND provider = ${identity.provider} RETURNING id`
            if (merged.length === 0) yield* insertIdentity(identity)
            return decision
          }).pipe(
            sql.withTransaction,
            // Only the unique violations were turned into errors above: anything else is a defect.
            Effect.catchTag("SqlError", Effect.die)
          ),
        ({ userId }) => ({ "user.id": userId })
      ),
      setPasswordHash: Telemetry.fn("UserRepositoryPg.setPasswordHash")(
        (id, hash, now) =>
          changeLive(
            id,
            sql`UPDATE ${users} SET encrypted_password = ${Option.getOrNull(hash)}, updated_at = ${now}
                WHERE id = ${id} AND deleted_at IS NULL RETURNING id`
          ),
        (id) => ({ "user.id": id })
      ),
      recordSignIn: Telemetry.fn("UserRepositoryPg.recordSignIn")(
        (id, identity, now) =>
          Effect.flatMap(recordSignIns({ id, identity, now }), (identities) =>
            Option.isNone(identities) ? Effect.fail(notFound(id)) : Effect.succeed(identities.value)
          ),
        (id) => ({ "user.id": id })
      ),
      softDelete: Telemetry.fn("UserRepositoryPg.softDelete")(
        (id, now) =>
          Effect.gen(function* () {
            yield* changeLive(
              id,
              sql`UPDATE ${users}
                  SET email = NULL, phone = NULL, encrypted_password = NULL, email_change = NULL,
                      phone_change = NULL, raw_app_meta_data = '{}'::jsonb,
                      raw_user_meta_data = '{}'::jsonb, deleted_at = ${now}, updated_at = ${now}
                  WHERE id = ${id} AND deleted_at IS NULL RETURNING id`
            )
            // The identity's own id stands in for the subject: the upstream account is free
            // again, and nothing left on the row says whose it was.
            yield* sql`UPDATE ${identitiesTable}
                       SET provider_id = id::text, identity_data = '{}'::jsonb, updated_at = ${now}
                       WHERE user_id = ${id}`
            // Sessions in id order, as every revocation locks them: no two wait on each other.
            yield* sql`SELECT id FROM ${sessions} WHERE user_id = ${id} ORDER BY id FOR UPDATE`
            yield* sql`UPDATE ${sessions} SET revoked_at = ${now}, updated_at = ${now}
                       WHERE user_id = ${id} AND revoked_at IS NULL`
            yield* sql`UPDATE ${refreshTokens} SET revoked = true, sealed_child = NULL, updated_at = ${now}
                       WHERE session_id IN (SELECT id FROM ${sessions} WHERE user_id = ${id})
                         AND (NOT revoked OR sealed_child IS NOT NULL)`
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),
        (id) => ({ "user.id": id })
      ),
      delete: Telemetry.fn("UserRepositoryPg.delete")(
        (id) =>
          changeLive(id, sql`DELETE FROM ${users} WHERE id = ${id} AND deleted_at IS NULL RETURNING id`),
        (id) => ({ "user.id": id })
      ),
      list: Telemetry.fn("UserRepositoryPg.list")(({ aud, order, page, perPage, filter }) =>
        Effect.gen(function* () {
          const direction = sql.literal(order === "asc" ? "ASC" : "DESC")
          // Supabase Auth's two columns, both without case here (emails are stored lower-cased).
          // The filter's own `%`, `_` and `\` are escaped with a backslash, LIKE's escape
          // character, so that they match themselves. A substring has no index to use: the
          // page still walks the (aud, created_at, id) index in order and stops when it is full.
          const pattern = `%${filter.replace(/[\\%_]/g, "\\$&")}%`
          const matching =
            filter === ""
              ? sql``
              : sql`AND (email ILIKE ${pattern} OR raw_user_meta_data ->> 'full_name' ILIKE ${pattern})`
          const counted = yield* sql`
            SELECT count(*)::int AS total FROM ${users}
            WHERE aud = ${aud} AND deleted_at IS NULL ${matching}`.pipe(decodeAll(CountRow))
          const rows = yield* sql`
            SELECT ${sql.literal(userColumns)} FROM ${users}
            WHERE aud = ${aud} AND deleted_at IS NULL ${matching}
            ORDER BY created_at ${direction}, id ${direction}
            LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(
            decodeAll(UserRow),
            Effect.map((rows) => rows.map(toUser))
          )
          return { users: rows, total: counted[0]?.total ?? 0 }
        })
      )
    }
  })
)
