import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { AuthTables } from "../../../../adapters/postgres/auth/AuthTables.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { StepUps } from "../../../../application/auth/ports/StepUps.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { challenged, enrolled } from "../../contract/auth/FactorStoreContract.js"
import { signIn } from "../../contract/auth/SessionStoreContract.js"

/**
 * The step-up statement reads the session in its snapshot, then locks it. The test forces the
 * interleaving between the two: a transaction holds the session's row; the step up, its
 * snapshot taken with the session as the request read it, spends the challenge and queues on the
 * lock; the transaction then refreshes the session and commits. The step up must write nothing —
 * the challenge open, the step unrecorded — and answer `Moved`, so that the verify raises the
 * session as it now stands.
 */
describe.skipIf(TestDatabase.isEmbedded("server"))("the step-up statement", () => {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer("server"))), {
    timeout: "60 seconds"
  })("on PostgreSQL", (it) => {
    it.effect("a session moved while the statement waited for its lock: nothing is written", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { name } = yield* AuthTables
        const factors = yield* FactorStore
        const sessions = yield* SessionStore
        const { session, user } = yield* signIn()
        const factor = yield* enrolled({}, user.id)
        yield* factors.markVerified(user.id, factor.id, Fixtures.t0, Option.none())
        const challenge = yield* challenged(factor, Fixtures.t0)
        const later = Time.plus(Fixtures.t0, "1 hour")

        // A refresh of the session, committed while the step up waits for the row.
        const release = yield* TestDatabase.holdingRows(
          `SELECT id FROM ${name("sessions")} WHERE id = $1 FOR UPDATE`,
          [session.id],
          sql.unsafe(
            `UPDATE ${name("sessions")} SET generation = generation + 1, updated_at = $2 WHERE id = $1`,
            [session.id, later]
          )
        )
        const stepUp = yield* Effect.fork(
          Effect.flatMap(StepUps, (stepUps) =>
            stepUps.stepUp({
              sessionId: session.id,
              factorId: factor.id,
              factorType: factor.factorType,
              child: Fixtures.refreshToken().hash,
              now: later,
              challengeId: challenge.id,
              totpStep: Option.some(100),
              seen: session
            })
          )
        )
        yield* TestDatabase.lockWaitOrEnd(stepUp)
        yield* release

        expect(yield* Fiber.join(stepUp)).toEqual({ _tag: "Moved" })
        const now = Option.getOrThrow(yield* sessions.findById(session.id))
        expect([now.generation, now.aal]).toEqual([session.generation + 1, "aal1"])
        expect(Option.map(yield* factors.find(user.id, factor.id), (found) => found.lastTotpStep)).toEqual(
          Option.some(Option.none())
        )
        expect((yield* factors.useChallenge(factor.id, challenge.id, later, Option.some(100)))._tag).toBe(
          "Used"
        )
      })
    )
  })
})
