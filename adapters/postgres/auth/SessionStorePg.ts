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

/** `host(ip)`: the address as it was given, without the `/32` a plain text cast adds. */
const sessionColumns = `id, user_id, aal, factor_id, not_after, user_agent, host(ip) AS ip, tag,
  amr::text AS amr, generation, refreshed_at, revoked_at, created_at, updated_at`

/** A session row: `amr` travels as JSON text, as every JSON column of the auth tables. */
const SessionRow = Schema.transform(
  Schema.Struct({ ...Session.Session.fields, amr: Schema.parseJson(Schema.Array(AmrEntry)) }),
  Schema.typeSchema(Session.Session),
  // Decoded field by field already: the class is not asked to validate them again.
  { strict: true, decode: (row) => new Session.Session(row, true), encode: (session) => ({ ...session }) }
)

const TokenRow = Schema.Struct({ sessionId: Session.SessionId, generation: Schema.Int })
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

    const findSession = (id: Session.SessionId, lock: boolean) =>
      sql`SELECT ${sql.literal(sessionColumns)} FROM ${sessions} WHERE id = ${id}
          ${sql.literal(lock ? "FOR UPDATE" : "")}`.pipe(decodeFirst(SessionRow))

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
        const token = yield* sql`
          SELECT session_id, generation FROM ${refreshTokens} WHERE token_hash = ${presented}`.pipe(
          decodeFirst(TokenRow)
        )
        if (Option.isNone(token)) return Effect.fail(new RefreshTokenNotFound())
        const stored = yield* findSession(token.value.sessionId, true)
        // The session went with its tokens (a deleted user) after the token was read.
        if (Option.isNone(stored)) return Effect.fail(new RefreshTokenNotFound())
        const session = stored.value
        const sessionId = session.id
        const { decision, after } = Session.present(session, token.value.generation, policy, now)
        const fail = (error: RefreshFailure): Effect.Effect<Refreshed, RefreshFailure> => Effect.fail(error)
        switch (decision._tag) {
          case "Rotate": {
            const sealed = Duration.greaterThan(policy.reuseInterval, Duration.zero) ? child.sealed : null
            yield* sql`
              UPDATE ${sessions}
              SET generation = ${after.generation}, refreshed_at = ${now}, updated_at = ${now}
              WHERE id = ${sessionId}`
            // The presented token holds the sealed child now; the one before it lets its go.
            yield* sql`
              UPDATE ${refreshTokens}
              SET revoked = true, updated_at = ${now},
                  sealed_child = CASE WHEN token_hash = ${presented} THEN ${sealed} ELSE NULL END
              WHERE session_id = ${sessionId} AND (token_hash = ${presented} OR sealed_child IS NOT NULL)`
            yield* sql`INSERT INTO ${refreshTokens} ${sql.insert({
              tokenHash: child.hash,
              userId: session.userId,
              parent: presented,
              sessionId,
              generation: after.generation,
              createdAt: now,
              updatedAt: now
            })}`
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
        (id) => findSession(id, false),
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
