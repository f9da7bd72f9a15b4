import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type StepUp, type StepUpOutcome, StepUps } from "../../../application/auth/ports/StepUps.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Assurance from "../../../domain/auth/Assurance.js"
import type { Session } from "../../../domain/auth/Session.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import * as SharedStatements from "../SharedStatements.js"
import * as SqlState from "../SqlState.js"
import { AuthTables } from "./AuthTables.js"
import * as MfaChallenges from "./tables/MfaChallenges.js"
import * as RefreshTokens from "./tables/RefreshTokens.js"
import * as Sessions from "./tables/Sessions.js"

type Name = (table: string) => string

/** The session row `session` live and as the request of the input row `input` read it. */
const asSeen = (session: string, input: string) =>
  `${session}.id = ${input}.session_id AND ${session}.revoked_at IS NULL
   AND ${session}.generation = ${input}.seen_generation AND ${session}.updated_at = ${input}.seen_updated_at`

/**
 * The step ups arriving together in one statement, each an element of the arrays $1–$12: the
 * raise's columns (`RefreshTokens.raiseCtes`'s input), then the challenge, the TOTP step (NULL for
 * a texted code), and the session's generation and `updated_at` as the request read them.
 *
 * A user twice in one batch (two verifies of one challenge, or of two of the user's sessions)
 * fails the statement before it locks anything, and each call runs again alone (Batched.ts): the
 * raise of one session ends the user's others, which one statement cannot write twice.
 *
 * Locks in the order every verify takes them — the challenges, their factors, their users' live
 * sessions, each in id order — so it cannot deadlock with the general verify's transaction. A
 * challenge counts as open only while its session is as read in the statement's snapshot, and
 * the session is raised only if it still is once locked. Were a challenge spent while its
 * session is not raised (it moved between the snapshot and the lock), `unraised` divides by zero,
 * which fails the whole statement: nothing is written, and the call, alone, hears `Moved`.
 */
const stepUpText = (name: Name) =>
  `WITH given AS (
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::int[], $6::timestamptz[],
                          $7::text[], $8::uuid[], $9::uuid[], $10::bigint[], $11::int[], $12::timestamptz[])
       WITH ORDINALITY AS g(session_id, aal, factor_id, amr, generation, now, child, user_id,
                            challenge_id, step, seen_generation, seen_updated_at, position)
   ),
   input AS (
     SELECT * FROM given WHERE 1 / (SELECT (count(DISTINCT user_id) = count(*))::int FROM given) = 1
   ),
   seen AS (
     SELECT i.position FROM input i JOIN ${name("sessions")} r ON ${asSeen("r", "i")}
   ),
   ${MfaChallenges.spendCtes(name, "AND i.position IN (SELECT position FROM seen)")},
   locked AS (
     SELECT s.id, s.generation, s.updated_at, s.revoked_at FROM ${name("sessions")} s
     WHERE s.user_id IN (SELECT i.user_id FROM spent p JOIN input i ON i.position = p.position)
       AND s.revoked_at IS NULL
     ORDER BY s.id FOR UPDATE
   ),
   ${RefreshTokens.raiseCtes(
     name,
     `AND i.position IN (SELECT position FROM spent)
      AND s.id IN (SELECT l.id FROM locked l JOIN input j ON ${asSeen("l", "j")})`
   )}
   SELECT i.position,
          o.position IS NOT NULL AS open,
          p.position IS NOT NULL AS spent,
          e.position IS NOT NULL AS seen,
          CASE WHEN p.position IS NOT NULL AND r.position IS NULL
               THEN 1 / (SELECT count(*)::int FROM raised x WHERE x.position = i.position) END AS unraised
   FROM input i
   LEFT JOIN open o ON o.position = i.position
   LEFT JOIN spent p ON p.position = i.position
   LEFT JOIN seen e ON e.position = i.position
   LEFT JOIN raised r ON r.position = i.position`

/** A step up and the session it raises, as `Assurance.raise` raises it. */
interface Input {
  readonly stepUp: StepUp
  readonly raised: Session
}

const parameters = (inputs: ReadonlyArray<Input>) => {
  const rows = inputs.map(({ raised, stepUp }) => [
    ...Sessions.raiseParameters(raised, stepUp.now),
    stepUp.child,
    raised.userId,
    stepUp.challengeId,
    Option.getOrNull(stepUp.totpStep),
    stepUp.seen.generation,
    stepUp.seen.updatedAt
  ])
  return Array.from({ length: 12 }, (_, column) => rows.map((row) => row[column]))
}

const OutcomeRow = Schema.Struct({
  position: Schema.NumberFromString,
  open: Schema.Boolean,
  spent: Schema.Boolean,
  /** false: the session had moved or ended before the statement began. */
  seen: Schema.Boolean
})

const outcomeOf = (row: typeof OutcomeRow.Type | undefined, raised: Session): StepUpOutcome => {
  if (row === undefined || !row.seen) return { _tag: "Moved" }
  if (!row.open) return { _tag: "Gone" }
  if (!row.spent) return { _tag: "StepRefused" }
  return { _tag: "Raised", raised }
}

/**
 * The failures that leave nothing written and the verify to its transaction: the division by
 * zero `stepUpText` fails with when a session moved under it, and a deadlock with another
 * statement that locked the same rows out of order.
 */
const isMoved = (defect: unknown) =>
  defect instanceof SqlError &&
  Option.exists(
    SqlState.of(defect),
    (code) => code === SqlState.divisionByZero || code === SqlState.deadlockDetected
  )

/**
 * `StepUps` on Postgres: one prepared statement, shared by the step ups arriving together
 * (SharedStatements.ts), so that one round trip and one commit serve many.
 */
export const layer = Layer.effect(
  StepUps,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const { name, prefix } = yield* AuthTables
    const shared = yield* SharedStatements.make({
      sql,
      pool,
      statement: Prepared.statement(`auth_step_ups_${prefix}`, stepUpText(name)),
      parameters,
      row: OutcomeRow,
      answers: (rows, inputs) => {
        const byPosition = new Map(rows.map((row) => [row.position, row]))
        return inputs.map((input, index) => outcomeOf(byPosition.get(index + 1), input.raised))
      }
    })

    const stepUp = (stepUp: StepUp) =>
      Effect.gen(function* () {
        if (Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          return yield* Effect.dieMessage("StepUps.stepUp inside a transaction would wait on its locks")
        }
        const raised = Assurance.raise(stepUp.seen, stepUp.factorId, stepUp.factorType, stepUp.now)
        return yield* shared({ stepUp, raised }).pipe(
          Effect.catchSomeDefect((defect) =>
            isMoved(defect) ? Option.some(Effect.succeed<StepUpOutcome>({ _tag: "Moved" })) : Option.none()
          )
        )
      })

    return {
      stepUp: Telemetry.fn("StepUpsPg.stepUp")(stepUp, (stepUp) => ({
        "session.id": stepUp.sessionId,
        "factor.id": stepUp.factorId
      }))
    }
  })
)
