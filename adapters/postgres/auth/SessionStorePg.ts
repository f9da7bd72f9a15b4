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
import { decodeAll, decodeFirst } from "../Rows.js"
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

const SealedRow = Schema.Struct({ sealedChild: Schema.NullOr(SealedSecret) })
const IdRow = Schema.Struct({ id: Session.SessionId })

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables
    const sessions = sql(tables.name("sessions"))
    const refreshTokens = sql(tables.name("refresh_tokens"))
    const encodeSession = Schema.encodeSync(SessionRow)

    const findSession = (id: Session.SessionId) =>
      sql`SELECT ${sql.literal(sessionColumns)} FROM ${sessions} s WHERE id = ${id}`.pipe(
        decodeFirst(SessionRow)
      )

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
            const sealed = Duration.greaterThan(policy.reuseInterval, Duration.zero) ? child.sealed : null
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
        (session, firstToken) => {
          const row = encodeSession(session)
          return Effect.gen(function* () {
            yield* sql`INSERT INTO ${sessions} ${sql.insert(row)}`
            yield* sql`INSERT INTO ${refreshTokens} ${sql.insert({
              tokenHash: firstToken,
              userId: session.userId,
              sessionId: session.id,
              generation: session.generation,
              createdAt: row.createdAt,
              updatedAt: row.createdAt
            })}`
          }).pipe(sql.withTransaction, Effect.orDie)
        },
        (session) => ({ "session.id": session.id, "user.id": session.userId })
      ),
      refresh: Telemetry.fn("SessionStorePg.refresh")((request) => refresh(request)),
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
