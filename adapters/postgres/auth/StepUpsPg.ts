import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type StepUp, type StepUpOutcome, StepUps } from "../../../application/auth/ports/StepUps.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as Assurance from "../../../domain/auth/Assurance.js"
import { PgPool } from "../PgPool.js"
import * as Prepared from "../Prepared.js"
import { decodeAll } from "../Rows.js"
import { AuthTables } from "./AuthTables.js"
import * as MfaChallenges from "./tables/MfaChallenges.js"
import * as RefreshTokens from "./tables/RefreshTokens.js"
import * as Sessions from "./tables/Sessions.js"
import * as Users from "./tables/Users.js"

type Name = (table: string) => string

/** $1 session, $11 generation, $12 `updated_at`: the session live and as the request read it. */
const asSeen = (alias: string) =>
  `${alias}.id = $1 AND ${alias}.revoked_at IS NULL AND ${alias}.generation = $11 AND ${alias}.updated_at = $12`

/**
 * The step up in one statement: `RefreshTokens.raiseCtes`'s parameters $1–$8, then $9 the
 * challenge, $10 the TOTP step (NULL for a texted code), $11 and $12 the session's generation and
 * `updated_at` as the request read them. Locks in the order every verify takes them — the
 * challenge, the factor, the user's live sessions in id order — so it cannot deadlock with the
 * general verify's transaction. The challenge counts as open only while the session is as read
 * in the statement's snapshot, and the session is raised only if it still is once locked. Were
 * the challenge spent while the session is not raised (it moved between the snapshot and the
 * lock), `unraised` divides by zero, which fails the whole statement: nothing is written, and
 * the caller hears `Moved`.
 */
const stepUpText = (name: Name) =>
  `WITH ${MfaChallenges.spendCtes(
    name,
    { challenge: "$9", factor: "$3", now: "$6", step: "$10" },
    `AND EXISTS (SELECT 1 FROM ${name("sessions")} r WHERE ${asSeen("r")})`
  )},
   locked AS (
     SELECT s.id, s.generation, s.updated_at, s.revoked_at FROM ${name("sessions")} s
     WHERE s.user_id = $8 AND s.revoked_at IS NULL AND EXISTS (SELECT 1 FROM spent)
     ORDER BY s.id FOR UPDATE
   ),
   ${RefreshTokens.raiseCtes(name, `AND id IN (SELECT l.id FROM locked l WHERE ${asSeen("l")})`)}
   SELECT (SELECT count(*) FROM open)::int AS open,
          (SELECT count(*) FROM spent)::int AS spent,
          (SELECT count(*) FROM ${name("sessions")} r WHERE ${asSeen("r")})::int AS seen,
          CASE WHEN EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM raised)
               THEN 1 / (SELECT count(*)::int FROM raised) END AS unraised,
          ${Users.accountJsonOf(name, "$8")} AS account`

const OutcomeRow = Schema.Struct({
  open: Schema.Int,
  spent: Schema.Int,
  /** 0: the session had moved or ended before the statement began. */
  seen: Schema.Int,
  account: RefreshTokens.AccountRow.fields.account
})

/** The division by zero `stepUpText` fails with when the session moved under it. */
const isUnraised = (error: SqlError) =>
  typeof error.cause === "object" &&
  error.cause !== null &&
  "code" in error.cause &&
  error.cause.code === "22012"

/** `StepUps` on Postgres: one prepared statement, on a connection of the pool's own. */
export const layer = Layer.effect(
  StepUps,
  Effect.gen(function* () {
    const pool = yield* PgPool
    const { name, prefix } = yield* AuthTables
    const statement = Prepared.statement(`auth_step_up_${prefix}`, stepUpText(name))

    const stepUp = ({ challengeId, factorId, factorType, child, now, seen, totpStep }: StepUp) =>
      Effect.gen(function* () {
        if (Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          return yield* Effect.dieMessage("StepUps.stepUp inside a transaction would wait on its locks")
        }
        const raised = Assurance.raise(seen, factorId, factorType, now)
        const ran = yield* Prepared.run(pool, statement, [
          ...Sessions.raiseParameters(raised, now),
          child,
          raised.userId,
          challengeId,
          Option.getOrNull(totpStep),
          seen.generation,
          seen.updatedAt
        ]).pipe(
          Effect.map(Option.some),
          Effect.catchIf(isUnraised, () => Effect.succeedNone),
          Effect.orDie
        )
        if (Option.isNone(ran)) return { _tag: "Moved" } satisfies StepUpOutcome
        const [row] = yield* decodeAll(OutcomeRow)(Effect.succeed(ran.value))
        if (row === undefined || row.seen === 0) return { _tag: "Moved" } satisfies StepUpOutcome
        if (row.open === 0) return { _tag: "Gone" } satisfies StepUpOutcome
        if (row.spent === 0) return { _tag: "StepRefused" } satisfies StepUpOutcome
        return {
          _tag: "Raised",
          raised: { session: raised, account: RefreshTokens.accountOf(row) }
        } satisfies StepUpOutcome
      })

    return {
      stepUp: Telemetry.fn("StepUpsPg.stepUp")(stepUp, (stepUp) => ({
        "session.id": stepUp.sessionId,
        "factor.id": stepUp.factorId
      }))
    }
  })
)
