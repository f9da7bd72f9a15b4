import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { UserNotFound, UserRepository } from "../../../application/auth/ports/UserRepository.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as PendingChange from "../../../domain/auth/PendingChange.js"
import type { Identity } from "../../../domain/Identity.js"
import type { IdentityId, UserId } from "../../../domain/Ids.js"
import { emailConfirmed, User } from "../../../domain/User.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import * as UniqueViolation from "../UniqueViolation.js"
import { AuthTables } from "./AuthTables.js"
import * as Identities from "./tables/Identities.js"
import * as MfaFactors from "./tables/MfaFactors.js"
import * as RefreshTokens from "./tables/RefreshTokens.js"
import * as Sessions from "./tables/Sessions.js"
import * as Users from "./tables/Users.js"

interface SignIn {
  readonly id: UserId
  readonly identity: Option.Option<IdentityId>
  readonly now: Date
}

/** The `UserRepository` port over the `users` and `identities` tables. */
export const layer = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const { name, prefix } = yield* AuthTables
    const users = sql(name("users"))
    const identities = sql(name("identities"))

    const notFound = (id: UserId) => new UserNotFound({ userId: id })
    const run = (text: string, parameters: ReadonlyArray<unknown>) => sql.unsafe(text, parameters)
    const readUsers = (text: string, parameters: ReadonlyArray<unknown>) =>
      run(text, parameters).pipe(
        decodeAll(Users.UserRow),
        Effect.map((rows) => rows.map(Users.toUser))
      )
    const readUser = (text: string, parameters: ReadonlyArray<unknown>) =>
      Effect.map(readUsers(text, parameters), (rows) => Option.fromNullable(rows[0]))

    // Every sign-in starts with a read of a live user by id, address or number, and every
    // authenticated request and refresh with a user and their identities: the requests
    // arriving together share each (SharedStatements.ts).
    const sharedUsers = (
      statement: string,
      text: string,
      keyOf: (row: typeof Users.UserRow.Type) => unknown
    ) =>
      SharedStatements.lookup({
        sql,
        pool,
        statement: Prepared.statement(`${statement}_${prefix}`, text),
        row: Users.UserRow,
        keyOf
      })
    // PostgreSQL writes uuids in lower case; a caller's may come in either (hence the ids
    // lower-cased below).
    const byId = yield* sharedUsers(
      "auth_find_users_by_id",
      Users.liveWhereText(name, "id = ANY($1::uuid[])"),
      (row) => row.id
    )
    const byEmail = yield* sharedUsers(
      "auth_find_users_by_email",
      Users.liveWhereText(name, "email = ANY($1::text[]) AND is_sso_user = false"),
      (row) => Option.getOrUndefined(row.email)
    )
    const byPhone = yield* sharedUsers(
      "auth_find_users_by_phone",
      Users.liveWhereText(name, "phone = ANY($1::text[]) AND is_sso_user = false"),
      (row) => Option.getOrUndefined(row.phone)
    )
    const passwordHashes = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: Prepared.statement(`auth_find_password_hashes_${prefix}`, Users.passwordHashesText(name)),
      row: Users.PasswordRow,
      keyOf: (row): string => row.id
    })
    const withIdentities = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: Prepared.statement(`auth_find_with_identities_${prefix}`, Users.withIdentitiesText(name)),
      row: Users.WithIdentitiesRow,
      keyOf: (row): string => row.id
    })
    // Every authenticated request reads its user, then the session its token names: each read
    // shared with the requests arriving together, and the user's row read once for all of its
    // tokens. One statement joining both answered each request with a row of its own, and
    // decoding the user's row and identities for each cost more than the second round trip.
    const sessions = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: Prepared.statement(`auth_find_signed_in_sessions_${prefix}`, Sessions.findText(name)),
      row: Sessions.Row,
      keyOf: (session): string => session.id
    })
    const userOf = (found: Effect.Effect<Option.Option<typeof Users.UserRow.Type>>) =>
      Effect.map(found, Option.map(Users.toUser))

    // Every sign-in ends with one: those arriving together share the statement.
    const recordSignIns = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(`auth_record_sign_ins_${prefix}`, Users.recordSignInsText(name)),
      parameters: (signIns: ReadonlyArray<SignIn>) => [
        signIns.map((signIn) => signIn.id),
        signIns.map((signIn) => Option.getOrNull(signIn.identity)),
        signIns.map((signIn) => signIn.now)
      ],
      row: Users.SignInsRow,
      answers: (rows, signIns) => {
        const byPosition = new Map(rows.map((row) => [row.position, row]))
        return signIns.map((_, i) => {
          const row = byPosition.get(i + 1)
          return row === undefined || !row.stamped
            ? Option.none()
            : Option.some({
                identities: row.identities.map(Identities.toIdentity),
                factors: MfaFactors.toFactors(row.factors)
              })
        })
      }
    })

    const insertIdentity = (identity: Identity) =>
      sql`INSERT INTO ${identities} ${sql.insert(Identities.row(identity))}`

    /** Writes a user as `Users.row` gives it; a unique violation is what `Users.conflict` says. */
    const write = (user: User) =>
      sql`UPDATE ${users} SET ${sql.update(Users.row(user))} WHERE id = ${user.id}`.pipe(
        Effect.catchTag(
          "SqlError",
          UniqueViolation.failOn((constraint) => Users.conflict(user, constraint))
        )
      )

    /** Runs a statement that changes a live user and returns its id; UserNotFound when none. */
    const changeLive = (id: UserId, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      statement.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(notFound(id)) : Effect.void))
      )

    return {
      insert: Telemetry.fn("UserRepositoryPg.insert")(
        (user, identityRows, passwordHash) => {
          if (identityRows.some((identity) => identity.userId !== user.id)) {
            return Effect.dieMessage("an identity inserted with a user must belong to it")
          }
          const userInsert = sql`INSERT INTO ${users} ${sql.insert(Users.insertRow(user, passwordHash))}`
          // The user and their identities in one statement, atomic on its own: one round trip
          // where a transaction (or, inside the caller's, a savepoint) took four or more. The
          // identities' reference to the user is checked at the end of the statement.
          const statement =
            identityRows.length === 0
              ? userInsert
              : sql`WITH inserted AS (${userInsert})
                    INSERT INTO ${identities} ${sql.insert(identityRows.map(Identities.row))}`
          return statement.pipe(
            Effect.asVoid,
            Effect.catchTag(
              "SqlError",
              UniqueViolation.failOn((constraint) => Users.insertConflict(user, identityRows, constraint))
            )
          )
        },
        (user) => ({ "user.id": user.id })
      ),
      addIdentity: Telemetry.fn("UserRepositoryPg.addIdentity")(
        (identity) =>
          Effect.gen(function* () {
            const live = yield* run(Users.lockIdText(name), [identity.userId])
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
        (id) => userOf(byId(id.toLowerCase())),
        (id) => ({ "user.id": id })
      ),
      findByEmail: Telemetry.fn("UserRepositoryPg.findByEmail")((email) => userOf(byEmail(email))),
      findByPhone: Telemetry.fn("UserRepositoryPg.findByPhone")((phone) => userOf(byPhone(phone))),
      findByPendingEmail: Telemetry.fn("UserRepositoryPg.findByPendingEmail")((email) =>
        readUser(Users.liveWhereText(name, "email_change = $1 AND is_sso_user = false"), [email])
      ),
      findByPendingPhone: Telemetry.fn("UserRepositoryPg.findByPendingPhone")((phone) =>
        readUser(Users.liveWhereText(name, "phone_change = $1 AND is_sso_user = false"), [phone])
      ),
      findByIdentity: Telemetry.fn("UserRepositoryPg.findByIdentity")((provider, providerId) =>
        Effect.gen(function* () {
          const identity = yield* run(Identities.findByAccountText(name), [provider, providerId]).pipe(
            decodeFirst(Identities.IdentityRow),
            Effect.map(Option.map(Identities.toIdentity))
          )
          if (Option.isNone(identity)) return Option.none()
          const found = yield* readUser(Users.liveWhereText(name, "id = $1"), [identity.value.userId])
          return Option.map(found, (owner) => ({ user: owner, identity: identity.value }))
        })
      ),
      refreshIdentity: Telemetry.fn("UserRepositoryPg.refreshIdentity")((id, data, now) =>
        run(Identities.refreshText(name), [id, JSON.stringify(data), now]).pipe(Effect.asVoid, Effect.orDie)
      ),
      mergeIdentityData: Telemetry.fn("UserRepositoryPg.mergeIdentityData")((userId, provider, data, now) =>
        run(Identities.mergeText(name), [userId, provider, JSON.stringify(data), now]).pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length > 0)
        )
      ),
      removeIdentity: Telemetry.fn("UserRepositoryPg.removeIdentity")((userId, identityId) =>
        run(Identities.removeText(name), [identityId, userId]).pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length > 0)
        )
      ),
      identitiesOf: Telemetry.fn("UserRepositoryPg.identitiesOf")(
        (id) =>
          run(Identities.ofLiveUserText(name), [id]).pipe(
            decodeAll(Identities.IdentityRow),
            Effect.map((rows) => rows.map(Identities.toIdentity))
          ),
        (id) => ({ "user.id": id })
      ),
      findAccount: Telemetry.fn("UserRepositoryPg.findAccount")(
        (id) =>
          run(Users.accountText(name), [id]).pipe(
            decodeFirst(Users.WithIdentitiesRow),
            Effect.map(Option.map(Users.toAccountOfRow))
          ),
        (id) => ({ "user.id": id })
      ),
      findWithIdentities: Telemetry.fn("UserRepositoryPg.findWithIdentities")(
        (id) => Effect.map(withIdentities(id), Option.map(Users.toWithIdentities)),
        (id) => ({ "user.id": id })
      ),
      findSignedIn: Telemetry.fn("UserRepositoryPg.findSignedIn")(
        (id, session) =>
          Effect.flatMap(withIdentities(id), (found) =>
            Option.match(found, {
              onNone: () => Effect.succeed(Option.none()),
              onSome: (row) =>
                Effect.map(
                  Option.match(session, {
                    onNone: () => Effect.succeed(Option.none()),
                    onSome: (sessionId) => sessions(sessionId)
                  }),
                  (named) => Option.some({ ...Users.toAccountOfRow(row), session: named })
                )
            })
          ),
        (id, session) =>
          Option.match(session, {
            onNone: () => ({ "user.id": id }),
            onSome: (sessionId) => ({ "user.id": id, "session.id": sessionId })
          })
      ),
      findPasswordHash: Telemetry.fn("UserRepositoryPg.findPasswordHash")(
        (id) =>
          Effect.map(
            passwordHashes(id.toLowerCase()),
            Option.flatMap((row) => Option.fromNullable(row.encryptedPassword))
          ),
        (id) => ({ "user.id": id })
      ),
      // Read, merge and write under the row's lock, so that concurrent updates of different
      // fields all land.
      update: Telemetry.fn("UserRepositoryPg.update")(
        (id, patch, now) =>
          Effect.gen(function* () {
            const stored = yield* readUser(Users.lockText(name), [id])
            if (Option.isNone(stored)) return yield* notFound(id)
            const changes = typeof patch === "function" ? patch(stored.value) : patch
            const updated = new User({ ...stored.value, ...changes, updatedAt: now })
            yield* write(updated)
            return updated
          }).pipe(
            sql.withTransaction,
            // Only the unique violations were turned into errors above: anything else is a defect.
            Effect.catchTag("SqlError", Effect.die)
          ),
        (id) => ({ "user.id": id })
      ),
      confirmEmail: Telemetry.fn("UserRepositoryPg.confirmEmail")(
        (id, { identities }, now) =>
          Effect.gen(function* () {
            const stored = yield* readUser(Users.lockText(name), [id])
            if (Option.isNone(stored)) return yield* notFound(id)
            const confirmed = new User({
              ...stored.value,
              ...emailConfirmed(stored.value.userMetadata, now),
              updatedAt: now
            })
            // The address is not changed, so no unique index can refuse the write.
            yield* write(confirmed).pipe(Effect.orDie)
            if (identities && Option.isSome(confirmed.email)) {
              yield* run(Identities.markEmailVerifiedText(name), [id, confirmed.email.value, now])
            }
            return confirmed
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),
        (id) => ({ "user.id": id })
      ),
      confirmChange: Telemetry.fn("UserRepositoryPg.confirmChange")(
        ({ userId, field, needed, identity, now }) =>
          Effect.gen(function* () {
            const stored = yield* readUser(Users.lockText(name), [userId])
            if (Option.isNone(stored)) return yield* notFound(userId)
            const decision = PendingChange.confirm(stored.value, field, needed, now)
            if (decision._tag === "NothingPending") return decision
            yield* write(decision.user)
            if (decision._tag === "Waiting") return { _tag: "Waiting" } as const
            const merged = yield* run(Identities.mergeText(name), [
              userId,
              identity.provider,
              JSON.stringify(identity.identityData),
              now
            ])
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
          changeLive(id, run(Users.setPasswordHashText(name), [id, Option.getOrNull(hash), now])),
        (id) => ({ "user.id": id })
      ),
      changePassword: Telemetry.fn("UserRepositoryPg.changePassword")(
        (id, hash, now) => changeLive(id, run(Users.changePasswordText(name), [id, hash, now])),
        (id) => ({ "user.id": id })
      ),
      recordSignIn: Telemetry.fn("UserRepositoryPg.recordSignIn")(
        (id, identity, now) =>
          Effect.flatMap(recordSignIns({ id, identity, now }), (stamped) =>
            Option.isNone(stamped) ? Effect.fail(notFound(id)) : Effect.succeed(stamped.value)
          ),
        (id) => ({ "user.id": id })
      ),
      softDelete: Telemetry.fn("UserRepositoryPg.softDelete")(
        (id, now) =>
          Effect.gen(function* () {
            if ((yield* run(Users.softDeleteText(name), [id, now])).length === 0) {
              // Soft-deleted already: nothing more to clear, as in Supabase Auth.
              if ((yield* run(Users.softDeletedText(name), [id])).length === 0)
                return yield* Effect.fail(notFound(id))
              return
            }
            yield* run(Identities.anonymiseText(name), [id, now])
            yield* run(Sessions.lockAllOfUserText(name), [id])
            yield* run(Sessions.revokeOfUserText(name), [id, now])
            yield* run(RefreshTokens.letGoOfUserText(name), [id, now])
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)),
        (id) => ({ "user.id": id })
      ),
      delete: Telemetry.fn("UserRepositoryPg.delete")(
        (id) => changeLive(id, run(Users.deleteText(name), [id])),
        (id) => ({ "user.id": id })
      ),
      reapAnonymous: Telemetry.fn("UserRepositoryPg.reapAnonymous")((createdBefore, limit) =>
        BatchedDelete.count(sql, Users.anonymousBatch(name), [createdBefore, limit])
      ),
      list: Telemetry.fn("UserRepositoryPg.list")(({ aud, order, page, perPage, filter }) =>
        Effect.gen(function* () {
          const filtered = filter !== ""
          const matching = filtered ? [aud, Users.likePattern(filter)] : [aud]
          const counted = yield* run(Users.countText(name, filtered), matching).pipe(
            decodeAll(Users.CountRow)
          )
          const rows = yield* readUsers(Users.pageText(name, order, filtered), [
            ...matching,
            perPage,
            (page - 1) * perPage
          ])
          return { users: rows, total: counted[0]?.total ?? 0 }
        })
      )
    }
  })
)
