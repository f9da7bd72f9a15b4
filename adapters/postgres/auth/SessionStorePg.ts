import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Rotation, SessionStore } from "../../../application/auth/ports/SessionStore.js"
import { SealedSecret } from "../../../application/ports/Secrets.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Session from "../../../domain/auth/Session.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import { AuthTables } from "./AuthTables.js"
import * as Sessions from "./tables/Sessions.js"

const { columnsOf: sessionColumnsOf, RowFields: SessionRowFields, Row: SessionRow } = Sessions
const sessionColumns = sessionColumnsOf("s")

/** A session locked for a refresh, with the generation of the token presented. */
const LockedRow = Schema.Struct({ ...SessionRowFields.fields, tokenGeneration: Schema.Int })

/**
 * `SessionStore.rotate` for the refreshes that arrive together (SharedStatements.ts): the
 * `Rotate` of `Session.present` is the WHERE clause (the presented token is its session's live
 * one, same generation, and the session has not ended), and the SET is `Session.rotate`; the
 * property test in test/adapters/contract/auth holds both to the rule. The conditional UPDATE
 * takes the session's row lock, so of concurrent presentations of one token exactly one
 * rotates, in one batch or across several. Each input is one element of the arrays: $1
 * presented digest, $2 now, $3 sealed child (null: none kept), $4 child digest; `position` says
 * which input a returned session answers.
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
 * each input is one element of the arrays, in the order of `startedColumns`, then $14 the first
 * token's digest. The tokens' reference to their sessions is checked at the end of the
 * statement, when the session rows exist.
 */
const startedColumns = `id, user_id, aal, factor_id, user_agent, ip, tag, amr, generation,
  refreshed_at, revoked_at, created_at, updated_at`
const startText = (sessions: string, refreshTokens: string) =>
  `WITH input AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[],
       $6::inet[], $7::text[], $8::jsonb[], $9::int[], $10::timestamptz[], $11::timestamptz[],
       $12::timestamptz[], $13::timestamptz[], $14::text[])
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

    // Every refresh rotates: those arriving together share one statement.
    const rotate = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(
        `auth_rotate_refresh_tokens_${tables.prefix}`,
        rotateText(tables.name("sessions"), tables.name("refresh_tokens"))
      ),
      parameters: (rotations: ReadonlyArray<Rotation>) => [
        rotations.map((rotation) => rotation.presented),
        rotations.map((rotation) => rotation.now),
        // A sealed secret is its own text: null when none is kept.
        rotations.map((rotation) => Option.getOrNull(rotation.sealed)),
        rotations.map((rotation) => rotation.child)
      ],
      row: RotatedRow,
      answers: (rows, rotations) => {
        const byPosition = new Map(
          // Decoded field by field already: the class is not asked to validate them again.
          rows.map(({ position, ...session }) => [position, new Session.Session(session, true)])
        )
        return rotations.map((_, i) => Option.fromNullable(byPosition.get(i + 1)))
      }
    })

    /**
     * The token's session, locked, with the token's generation: one round trip. A token's
     * session and generation never change, so reading them with the lock is as good as before.
     * Its sealed child is read after the lock: a rotation that held the lock has committed it.
     */
    const lockPresented = (presented: SecretHash) =>
      Effect.gen(function* () {
        if (Option.isNone(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          return yield* Effect.dieMessage("SessionStore.lockPresented outside a transaction holds no lock")
        }
        const found = yield* sql`
          SELECT ${sql.literal(sessionColumns)}, t.generation AS token_generation
          FROM ${refreshTokens} t JOIN ${sessions} s ON s.id = t.session_id
          WHERE t.token_hash = ${presented}
          FOR UPDATE OF s`.pipe(decodeFirst(LockedRow))
        if (Option.isNone(found)) return Option.none()
        const { tokenGeneration, ...fields } = found.value
        const sealed = yield* sql`
          SELECT sealed_child FROM ${refreshTokens} WHERE token_hash = ${presented}`.pipe(
          decodeFirst(SealedRow)
        )
        return Option.some({
          // Decoded field by field already: the class is not asked to validate them again.
          session: new Session.Session(fields, true),
          generation: tokenGeneration,
          sealedChild: Option.flatMap(sealed, (row) => Option.fromNullable(row.sealedChild))
        })
      }).pipe(Effect.orDie)

    return {
      start: Telemetry.fn("SessionStorePg.start")(
        (session, firstToken) => Effect.asVoid(startSession({ row: encodeSession(session), firstToken })),
        (session) => ({ "session.id": session.id, "user.id": session.userId })
      ),
      rotate: Telemetry.fn("SessionStorePg.rotate")(rotate),
      lockPresented: Telemetry.fn("SessionStorePg.lockPresented")(lockPresented),
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
