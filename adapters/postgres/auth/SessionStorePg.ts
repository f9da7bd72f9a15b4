import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Lowered, type Raise, SessionStore } from "../../../application/auth/ports/SessionStore.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Assurance from "../../../domain/auth/Assurance.js"
import type * as Session from "../../../domain/auth/Session.js"
import type { SecretHash } from "../../../domain/Ids.js"
import * as BatchedDelete from "../BatchedDelete.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll, decodeFirst } from "../Rows.js"
import * as SharedStatements from "../SharedStatements.js"
import { AuthTables } from "./AuthTables.js"
import * as RefreshTokens from "./tables/RefreshTokens.js"
import * as Sessions from "./tables/Sessions.js"

/** The `SessionStore` port over the `sessions` and `refresh_tokens` tables. */
export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const { name, prefix } = yield* AuthTables

    /**
     * Runs `effect` in the caller's transaction when there is one, else in a transaction of its
     * own: a nested `withTransaction` would cost a savepoint round trip for nothing.
     */
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
        Option.isSome(open) ? effect : sql.withTransaction(effect)
      )

    // Every authenticated request reads its session: those arriving together share one look-up.
    const findSession = yield* SharedStatements.lookup({
      sql,
      pool,
      statement: Prepared.statement(`auth_find_sessions_${prefix}`, Sessions.findText(name)),
      row: Sessions.Row,
      keyOf: (session): string => session.id
    })

    // Every sign-in starts a session: those arriving together share one statement, atomic on
    // its own, where a transaction of two inserts took four round trips.
    const startSessions = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(`auth_start_sessions_${prefix}`, Sessions.startText(name)),
      parameters: Sessions.startParameters,
      row: Schema.Unknown,
      // An answer per input, which Batched.ts counts (undefined would read as a missing one).
      answers: (_rows, starts) => starts.map(() => true)
    })

    // Every refresh rotates: those arriving together share one statement.
    const rotate = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(`auth_rotate_refresh_tokens_${prefix}`, RefreshTokens.rotateText(name)),
      parameters: RefreshTokens.rotateParameters,
      row: RefreshTokens.RotatedRow,
      answers: RefreshTokens.rotatedOf
    })

    /** A statement answering in one row how many sessions it ended (`EndedRow`). */
    const counted = (text: string, parameters: ReadonlyArray<unknown>) =>
      sql
        .unsafe(text, parameters)
        .pipe(
          decodeFirst(Sessions.EndedRow),
          Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.ended }))
        )

    /**
     * Ends the sessions `lock` locks (live ones, by its parameters) and lets their tokens go, in
     * one statement (`Sessions.endLockedText`): atomic on its own, so it needs no transaction
     * of its own inside one or out of one.
     */
    const revokeLocked = (lock: string, parameters: ReadonlyArray<unknown>, now: Date) => {
      const at = `$${parameters.length + 1}`
      return counted(
        Sessions.endLockedText(
          name,
          lock,
          at,
          RefreshTokens.letGoOfText(name, `SELECT id, ${at}::timestamptz AS now FROM locked`)
        ),
        [...parameters, now]
      )
    }

    /**
     * The token's session, locked, with the token's generation and the session's user: one
     * round trip. Its sealed
     * child is read after the lock: a rotation that held the lock has committed it.
     */
    const lockPresented = (presented: SecretHash) =>
      Effect.gen(function* () {
        if (Option.isNone(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          return yield* Effect.dieMessage("SessionStore.lockPresented outside a transaction holds no lock")
        }
        const found = yield* sql
          .unsafe(RefreshTokens.lockPresentedText(name), [presented])
          .pipe(decodeFirst(RefreshTokens.LockedRow))
        if (Option.isNone(found)) return Option.none()
        const sealed = yield* sql
          .unsafe(RefreshTokens.sealedChildText(name), [presented])
          .pipe(decodeFirst(RefreshTokens.SealedRow))
        return Option.some({
          ...RefreshTokens.lockedOf(found.value),
          sealedChild: Option.flatMap(sealed, (row) => Option.fromNullable(row.sealedChild))
        })
      }).pipe(Effect.orDie)

    /**
     * The session locked (with the user's other live sessions, in id order), raised by
     * `Assurance.raise`, then written with its tokens retired
     * without sealed children, the new live token and the account read, in one statement
     * (`RefreshTokens.raiseText`): two round trips, inside the caller's transaction when it runs
     * in one (`Transactions.run`), else in one of its own. The lock orders concurrent raises of
     * one session.
     */
    const raise = ({ child, factorId, factorType, now, sessionId }: Raise) =>
      Effect.gen(function* () {
        const live = yield* sql
          .unsafe(Sessions.lockLiveOfSessionUserText(name), [sessionId])
          .pipe(decodeAll(Sessions.Row))
        const found = live.find((session) => session.id === sessionId)
        if (found === undefined) return Option.none()
        const raised = Assurance.raise(found, factorId, factorType, now)
        const account = yield* sql
          .unsafe(RefreshTokens.raiseText(name), [
            ...Sessions.raiseParameters(raised, now),
            child,
            raised.userId
          ])
          .pipe(decodeFirst(RefreshTokens.AccountRow))
        return Option.some({ session: raised, account: Option.flatMap(account, RefreshTokens.accountOf) })
      }).pipe(inTransaction, Effect.orDie)

    /**
     * The sessions the factor raised, locked, each as `Assurance.lower` leaves it, written back
     * in one statement: one transaction (a savepoint inside `Transactions.run`).
     */
    const lowerRaisedBy = ({ factorId, factorType, now, userId }: Lowered) =>
      Effect.gen(function* () {
        const raised = yield* sql
          .unsafe(Sessions.lockRaisedByText(name), [userId, factorId])
          .pipe(decodeAll(Sessions.Row))
        if (raised.length === 0) return 0
        const lowered = raised.map((session) => Assurance.lower(session, factorId, factorType, now))
        yield* sql.unsafe(Sessions.lowerText(name), Sessions.lowerParameters(lowered, now))
        return lowered.length
      }).pipe(inTransaction, Effect.orDie)

    return {
      start: Telemetry.fn("SessionStorePg.start")(
        (session, firstToken) => Effect.asVoid(startSessions({ session, firstToken })),
        (session) => ({ "session.id": session.id, "user.id": session.userId })
      ),
      rotate: Telemetry.fn("SessionStorePg.rotate")(rotate),
      lockPresented: Telemetry.fn("SessionStorePg.lockPresented")(lockPresented),
      raise: Telemetry.fn("SessionStorePg.raise")(raise, (raise) => ({
        "session.id": raise.sessionId,
        "factor.id": raise.factorId
      })),
      lowerRaisedBy: Telemetry.fn("SessionStorePg.lowerRaisedBy")(lowerRaisedBy, (lowered) => ({
        "user.id": lowered.userId,
        "factor.id": lowered.factorId
      })),
      findById: Telemetry.fn("SessionStorePg.findById")(
        (id) => findSession(id),
        (id) => ({ "session.id": id })
      ),
      liveOfUser: Telemetry.fn("SessionStorePg.liveOfUser")(
        (userId, usedAfter) =>
          sql
            .unsafe(Sessions.liveOfUserText(name), [userId, Option.getOrNull(usedAfter)])
            .pipe(decodeAll(Sessions.Row), Effect.orDie),
        (userId) => ({ "user.id": userId })
      ),
      revoke: Telemetry.fn("SessionStorePg.revoke")(
        (id, now) => Effect.map(revokeLocked(Sessions.lockLiveText(name), [id], now), (count) => count > 0),
        (id) => ({ "session.id": id })
      ),
      revokeAll: Telemetry.fn("SessionStorePg.revokeAll")(
        (userId, now) => revokeLocked(Sessions.lockLiveOfUserText(name), [userId], now),
        (userId) => ({ "user.id": userId })
      ),
      revokeOthers: Telemetry.fn("SessionStorePg.revokeOthers")(
        (userId, keep: Session.SessionId, now) =>
          revokeLocked(Sessions.lockLiveOfUserButText(name), [userId, keep], now),
        (userId, keep) => ({ "user.id": userId, "session.id": keep })
      ),
      reapEnded: Telemetry.fn("SessionStorePg.reapEnded")((endedBefore, limit) =>
        BatchedDelete.count(sql, Sessions.endedBatch(name), [endedBefore, limit])
      ),
      reapOutlived: Telemetry.fn("SessionStorePg.reapOutlived")(({ idleSince, startedBefore }, limit) =>
        BatchedDelete.count(sql, Sessions.outlivedBatch(name), [
          Option.getOrNull(startedBefore),
          Option.getOrNull(idleSince),
          limit
        ])
      ),
      reapRetired: Telemetry.fn("SessionStorePg.reapRetired")((retiredBefore, limit) =>
        BatchedDelete.count(sql, RefreshTokens.retiredBatch(name), [retiredBefore, limit])
      )
    }
  })
)
