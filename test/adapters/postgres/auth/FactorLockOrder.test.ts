import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { AuthTables } from "../../../../adapters/postgres/auth/AuthTables.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { challenged, enrolled, storedUser } from "../../contract/auth/FactorStoreContract.js"

/**
 * A verify locks its challenge, then the factor (to record the code's step); removing a factor
 * deletes it, and with it its challenges. The test forces the interleaving that deadlocked when
 * the removal locked the factor first: a transaction holds the factor's row; the removal queues
 * on it; the verify takes the challenge and queues behind the removal. Released, the removal
 * takes the factor and wants the challenge the verify holds, which waits for the factor
 * (PostgreSQL: 40P01, a 500). Removing locks the factor's challenges first, as a verify does, so
 * the verify waits for the removal and finds its challenge gone.
 */
describe.skipIf(TestDatabase.isEmbedded("server"))("the factor removal's lock order", () => {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer("server"))), {
    timeout: "60 seconds"
  })("on PostgreSQL", (it) => {
    it.effect("a factor removed while a verify of its challenge runs: neither deadlocks", () =>
      Effect.gen(function* () {
        const { name } = yield* AuthTables
        const store = yield* FactorStore
        const userId = yield* storedUser
        const factor = yield* enrolled({}, userId)
        const challenge = yield* challenged(factor, Fixtures.t0)

        const release = yield* TestDatabase.holdingRows(
          `SELECT id FROM ${name("mfa_factors")} WHERE id = $1 FOR UPDATE`,
          [factor.id]
        )
        const removal = yield* Effect.fork(store.remove(userId, factor.id))
        yield* TestDatabase.lockWaitOrEnd(removal)
        const verify = yield* Effect.fork(
          store.useChallenge(factor.id, challenge.id, Time.plus(Fixtures.t0, "1 minute"), Option.some(100))
        )
        yield* TestDatabase.lockWaitOrEnd(verify, 2)
        yield* release

        const removed = yield* Fiber.await(removal)
        const used = yield* Fiber.await(verify)
        expect(
          Exit.isSuccess(removed) ? Option.map(removed.value, (gone) => gone.id) : removed.cause.toString()
        ).toEqual(Option.some(factor.id))
        // The removal came first: the challenge went with the factor.
        expect(Exit.isSuccess(used) ? used.value._tag : used.cause.toString()).toBe("Gone")
      })
    )
  })
})
