import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  type Refreshed,
  type RefreshFailure,
  type RefreshRequest,
  RefreshTokenAlreadyUsed,
  RefreshTokenExpired,
  RefreshTokenNotFound,
  SessionRevoked,
  SessionStore
} from "../../../application/auth/ports/SessionStore.js"
import { SealedSecret } from "../../../application/auth/ports/TokenSealer.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { AmrEntry } from "../../../domain/auth/AccessTokenClaims.js"
import * as Session from "../../../domain/auth/Session.js"
import type { UserId } from "../../../domain/Ids.js"
import * as Batched from "../Batched.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import { AuthTables } from "./AuthTables.js"

/**
 * The columns of `Session`, read from the table under `alias`. `host(ip)`: the address as it
 * was given, without the `/32` a plain text cast adds.
 */
const sessionColumnsOf = (alias: string) =>
  `${alias}.id, ${alias}.user_id, ${alias}.aal, ${alias}.factor_id, ${alias}.not_after, ${alias}.user_agent,
  host(${alias}.ip) AS ip, ${alias}.tag, ${alias}.amr::text AS amr, ${alias}.generation, ${alias}.refreshed_at,
  ${alias}.revoked_at, ${alias}.created_at, ${alias}.updated_at`

const sessionColumns = sessionColumnsOf("s")

/** A session row: `amr` travels as JSON text, as every JSON column of the auth tables. */
const SessionRowFields = Schema.Struct({
  ...Session.Session.fields,
  amr: Schema.parseJson(Schema.Array(AmrEntry))
})

const SessionRow = Schema.transform(SessionRowFields, Schema.typeSchema(Session.Session), {
  strict: true,
  // Decoded field by field already: the class is not asked to validate them again.
  decode: (row) => new Session.Session(row, true),
  encode: (session) => ({ ...session })
})

/** A session locked for a refresh, with the generation of the token presented. */
const LockedRow = Schema.Struct({ ...SessionRowFields.fields, tokenGeneration: Schema.Int })

/**
 * The `Rotate` branch of `Session.present` as one statement for the refreshes that arrive
 * together (Batched.ts): a presented token rotates when it is its session's live one (same
 * generation) and the session is not revoked — a session's family binds no client and has no
 * lifetime of its own. The conditional UPDATE takes the session's row lock, so of concurrent
 * presentations of one token exactly one rotates, in one batch or across several; the others
 * match nothing here and are decided under the lock by the full path. Each input is one
 * element of the arrays: $1 presented digest, $2 now, $3 sealed child (null: none kept),
 * $4 child digest; `position` says which input a returned session answers.
 */
const rotateText = (sessions: string, refreshTokens: string) =>
  `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[])
       WITH ORDINALITY AS i(presented, rotated_at, sealed, child_hash, position)
   ), presented AS (
     SELECT i.*, t.session_id, t.generation AS token_generation
     FROM input i JOIN ${refreshTokens} t ON t.token_hash = i.presented
   ), rotated AS (
     UPDATE ${sessions} s
     SET generation = s.generation + 1, refreshed_at = p.rotated_at, updated_at = p.rotated_at
     FROM presented p
     WHERE s.id = p.session_id AND s.generation = p.token_generation AND s.revoked_at IS NULL
     RETURNING s.*, p.position, p.presented, p.sealed, p.child_hash, p.rotated_at
   ), retired AS (
     UPDATE ${refreshTokens} t
     SET revoked = true, updated_at = r.rotated_at,
         sealed_child = CASE WHEN t.token_hash = r.presented THEN r.sealed ELSE NULL END
     FROM rotated r
     WHERE t.session_id = r.id AND (t.token_hash = r.presented OR t.sealed_child IS NOT NULL)
   ), child AS (
     INSERT INTO ${refreshTokens} (token_hash, user_id, parent, session_id, generation, created_at, updated_at)
     SELECT r.child_hash, r.user_id, r.presented, r.id, r.generation, r.rotated_at, r.rotated_at
     FROM rotated r
   )
   SELECT ${sessionColumnsOf("r")}, r.position FROM rotated r`

/**
 * Sessions started together (Batched.ts), each with its first refresh token, in one statement:
 * each input is one element of the arrays, in the order of `startedColumns`, then $15 the first
 * token's digest. The tokens' reference to their sessions is checked at the end of the
 * statement, when the session rows exist.
 */
const startedColumns = `id, user_id, aal, factor_id, not_after, user_agent, ip, tag, amr, generation,
  refreshed_at, revoked_at, created_at, updated_at`
const startText = (sessions: string, refreshTokens: string) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::text[],
       $7::inet[], $8::text[], $9::jsonb[], $10::int[], $11::timestamptz[], $12::timestamptz[],
       $13::timestamptz[], $14::timestamptz[], $15::text[])
       AS i(${startedColumns}, token_hash)
   ), started AS (
     INSERT INTO ${sessions} (${startedColumns}) SELECT ${startedColumns} FROM input
   )
   INSERT INTO ${refreshTokens} (token_hash, user_id, session_id, generation, created_at, updated_at)
   SELECT token_hash, user_id, id, generation, created_at, created_at FROM input`

const RotatedRow = Schema.Struct({ ...SessionRowFields.fields, position: Schema.NumberFromString })

const SealedRow = Schema.Struct({ sealedChild: Schema.NullOr(SealedSecret) })
const IdRow = Schema.Struct({ id: Session.SessionId })

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const tables = yield* AuthTables
    const sessions = sql(tables.name("sessions"))
    const refreshTokens = sql(tables.name("refresh_tokens"))
    const encodeSession = Schema.encodeSync(SessionRow)

    // Every authenticated request reads its session: those arriving together share one look-up.
    const findStatement = Prepared.statement(
      `auth_find_sessions_${tables.prefix}`,
      `SELECT ${sessionColumns} FROM ${tables.name("sessions")} s WHERE id = ANY($1::uuid[])`
    )
    const findSession = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: findStatement,
      row: SessionRow,
      keyOf: (session): string => session.id
    })

    /** The sealed child is kept on the retired token only while there is a reuse interval. */
    const sealedToKeep = (request: RefreshRequest) =>
      Duration.greaterThan(request.policy.reuseInterval, Duration.zero) ? request.child.sealed : null

    /** Revokes the sessions with these ids (locked already) and lets their sealed children go. */
    const revokeLocked = (ids: ReadonlyArray<Session.SessionId>, now: Date) =>
      ids.length === 0
        ? Effect.succeed(0)
        : Effect.gen(function* () {
            const revoked = yield* sql`
              UPDATE ${sessions} SET revoked_at = ${now}, updated_at = ${now}
              WHERE id IN ${sql.in(ids)} AND revoked_at IS NULL RETURNING id`
            yield* sql`
              UPDATE ${refreshTokens} SET revoked = true, sealed_child = NULL, updated_at = ${now}
              WHERE session_id IN ${sql.in(ids)} AND (NOT revoked OR sealed_child IS NOT NULL)`
            return revoked.length
          })

    /**
     * Revokes the user's sessions `others` picks, all in one transaction. The rows are locked
     * in id order first, as every multi-session revocation locks them, so two of them never
     * wait on each other; a refresh locks one session only.
     */
    const revokeOfUser = (userId: UserId, keep: Option.Option<Session.SessionId>, now: Date) =>
      Effect.gen(function* () {
        const locked = yield* sql`
          SELECT id FROM ${sessions}
          WHERE user_id = ${userId} AND revoked_at IS NULL
            ${Option.match(keep, { onNone: () => sql``, onSome: (id) => sql`AND id <> ${id}` })}
          ORDER BY id FOR UPDATE`.pipe(decodeAll(IdRow))
        return yield* revokeLocked(
          locked.map((row) => row.id),
          now
        )
      }).pipe(sql.withTransaction, Effect.orDie)

    type SessionRowEncoded = ReturnType<typeof encodeSession>
    interface Start {
      readonly row: SessionRowEncoded
      readonly firstToken: string
    }

    // Every sign-in starts a session: those arriving together share one statement, atomic on
    // its own, where a transaction of two inserts took four round trips.
    const column = <A>(starts: ReadonlyArray<Start>, of: (row: SessionRowEncoded) => A) =>
      starts.map(({ row }) => of(row))
    const startSession = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_start_sessions_${tables.prefix}`,
        startText(tables.name("sessions"), tables.name("refresh_tokens"))
      ),
      parameters: (starts: ReadonlyArray<Start>) => [
        column(starts, (row) => row.id),
        column(starts, (row) => row.userId),
        column(starts, (row) => row.aal),
        column(starts, (row) => row.factorId),
        column(starts, (row) => row.notAfter),
        column(starts, (row) => row.userAgent),
        column(starts, (row) => row.ip),
        column(starts, (row) => row.tag),
        column(starts, (row) => row.amr),
        column(starts, (row) => row.generation),
        column(starts, (row) => row.refreshedAt),
        column(starts, (row) => row.revokedAt),
        column(starts, (row) => row.createdAt),
        column(starts, (row) => row.updatedAt),
        starts.map((start) => start.firstToken)
      ],
      row: Schema.Unknown,
      // An answer per input, which Batched.ts counts (undefined would read as a missing one).
      answers: (_rows, starts) => starts.map(() => true)
    })

    const rotateStatement = Prepared.statement(
      `auth_rotate_refresh_tokens_${tables.prefix}`,
      rotateText(tables.name("sessions"), tables.name("refresh_tokens"))
    )
    const tryRotate = yield* Batched.make({
      maxBatch: 256,
      maxInFlight: 2,
      run: (requests: ReadonlyArray<RefreshRequest>) =>
        Prepared.run(pool, rotateStatement, [
          requests.map((request) => request.presented),
          requests.map((request) => request.now),
          requests.map((request) => sealedToKeep(request)),
          requests.map((request) => request.child.hash)
        ]).pipe(
          decodeAll(RotatedRow),
          Effect.map((rows) => {
            const byPosition = new Map(
              // Decoded field by field already: the class is not asked to validate them again.
              rows.map(({ position, ...session }) => [position, new Session.Session(session, true)])
            )
            return requests.map((_, i) => Option.fromNullable(byPosition.get(i + 1)))
          })
        )
    })

    /**
     * Everything under the session's row lock, so that presentations of one token are decided
     * one after the other on the state each predecessor left: the first rotates, the next see
     * the parent of the live token. The transaction returns the outcome rather than failing
     * with it, so that a revocation on reuse commits before the caller hears of it.
     */
    const refresh = (request: RefreshRequest) =>
      Effect.gen(function* () {
        const { child, now, policy, presented } = request
        // The token's session, locked, with the token's generation: one round trip. A token's
        // session and generation never change, so reading them with the lock is as good as before.
        const found = yield* sql`
          SELECT ${sql.literal(sessionColumns)}, t.generation AS token_generation
          FROM ${refreshTokens} t JOIN ${sessions} s ON s.id = t.session_id
          WHERE t.token_hash = ${presented}
          FOR UPDATE OF s`.pipe(decodeFirst(LockedRow))
        if (Option.isNone(found)) return Effect.fail(new RefreshTokenNotFound())
        const { tokenGeneration, ...fields } = found.value
        // Decoded field by field already: the class is not asked to validate them again.
        const session = new Session.Session(fields, true)
        const sessionId = session.id
        const { decision, after } = Session.present(session, tokenGeneration, policy, now)
        const fail = (error: RefreshFailure): Effect.Effect<Refreshed, RefreshFailure> => Effect.fail(error)
        switch (decision._tag) {
          case "Rotate": {
            const sealed = sealedToKeep(request)
            // The three writes of a rotation in one statement: the session's generation, the
            // presented token retired (holding the sealed child; the one before it lets its go),
            // and the child. They touch different rows, so they may run as one.
            yield* sql`
              WITH rotated AS (
                UPDATE ${sessions}
                SET generation = ${after.generation}, refreshed_at = ${now}, updated_at = ${now}
                WHERE id = ${sessionId}
              ), retired AS (
                UPDATE ${refreshTokens}
                SET revoked = true, updated_at = ${now},
                    sealed_child = CASE WHEN token_hash = ${presented} THEN ${sealed} ELSE NULL END
                WHERE session_id = ${sessionId} AND (token_hash = ${presented} OR sealed_child IS NOT NULL)
              )
              INSERT INTO ${refreshTokens}
                (token_hash, user_id, parent, session_id, generation, created_at, updated_at)
              VALUES (${child.hash}, ${session.userId}, ${presented}, ${sessionId}, ${after.generation}, ${now}, ${now})`
            const rotated: Refreshed = { _tag: "Rotated", session: after }
            return Effect.succeed(rotated)
          }
          case "Reissue": {
            // Read after the lock: the rotation that sealed it has committed by now.
            const row = yield* sql`
              SELECT sealed_child FROM ${refreshTokens} WHERE token_hash = ${presented}`.pipe(
              decodeFirst(SealedRow)
            )
            return Option.match(
              Option.flatMap(row, (r) => Option.fromNullable(r.sealedChild)),
              {
                // Rotated while no reuse interval was configured: there is nothing to hand out.
                onNone: () => fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false })),
                onSome: (sealed): Effect.Effect<Refreshed, RefreshFailure> =>
                  Effect.succeed({ _tag: "Reissued", session, child: sealed })
              }
            )
          }
          case "ReuseDetected":
            yield* revokeLocked([sessionId], now)
            return fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: true }))
          case "AlreadyUsed":
            return fail(new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false }))
          case "Revoked":
            return fail(new SessionRevoked({ sessionId }))
          case "Expired":
            return fail(new RefreshTokenExpired({ sessionId }))
          case "WrongClient":
            return yield* Effect.dieMessage("a session's refresh tokens are bound to no client")
        }
      }).pipe(sql.withTransaction, Effect.orDie, Effect.flatten)

    return {
      start: Telemetry.fn("SessionStorePg.start")(
        (session, firstToken) => Effect.asVoid(startSession({ row: encodeSession(session), firstToken })),
        (session) => ({ "session.id": session.id, "user.id": session.userId })
      ),
      // The live token's presentation, the common case, rotates in a shared statement; any
      // other is decided on the session as it stands, under its lock.
      refresh: Telemetry.fn("SessionStorePg.refresh")((request) =>
        Effect.flatMap(
          tryRotate(request),
          Option.match({
            onNone: () => refresh(request),
            onSome: (session): Effect.Effect<Refreshed, RefreshFailure> =>
              Effect.succeed({ _tag: "Rotated", session })
          })
        )
      ),
      findById: Telemetry.fn("SessionStorePg.findById")(
        (id) => findSession(id),
        (id) => ({ "session.id": id })
      ),
      revoke: Telemetry.fn("SessionStorePg.revoke")(
        (id, now) =>
          Effect.gen(function* () {
            const locked = yield* sql`
              SELECT id FROM ${sessions} WHERE id = ${id} AND revoked_at IS NULL FOR UPDATE`.pipe(
              decodeAll(IdRow)
            )
            return (
              (yield* revokeLocked(
                locked.map((row) => row.id),
                now
              )) > 0
            )
          }).pipe(sql.withTransaction, Effect.orDie),
        (id) => ({ "session.id": id })
      ),
      revokeAll: Telemetry.fn("SessionStorePg.revokeAll")(
        (userId, now) => revokeOfUser(userId, Option.none(), now),
        (userId) => ({ "user.id": userId })
      ),
      revokeOthers: Telemetry.fn("SessionStorePg.revokeOthers")(
        (userId, keep, now) => revokeOfUser(userId, Option.some(keep), now),
        (userId, keep) => ({ "user.id": userId, "session.id": keep })
      )
    }
  })
)
