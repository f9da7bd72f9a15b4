import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Batched from "../../../adapters/postgres/Batched.js"
import * as DatabaseUnavailable from "../../../adapters/postgres/DatabaseUnavailable.js"

/** A batch runner that records each batch and holds it until released. */
const recorder = Effect.gen(function* () {
  const batches: Array<ReadonlyArray<number>> = []
  const release = yield* Deferred.make<void>()
  const run = (inputs: ReadonlyArray<number>) =>
    Effect.sync(() => batches.push(inputs)).pipe(
      Effect.zipRight(Deferred.await(release)),
      Effect.as(inputs.map((n) => n * 10))
    )
  return { batches, release, run }
})

/** Lets the event loop turn a few times, so forked calls arrive and scheduled batches leave. */
const turn = Effect.promise(
  () =>
    new Promise<void>((resolve) => {
      let turns = 0
      const next = () => (++turns === 10 ? resolve() : setImmediate(next))
      setImmediate(next)
    })
)

describe("Batched", () => {
  it.live("calls made together leave in one batch and each gets its own output", () =>
    Effect.gen(function* () {
      const { batches, release, run } = yield* recorder
      yield* Deferred.succeed(release, undefined)
      const call = yield* Batched.make({ run, maxBatch: 100, maxInFlight: 1 })
      const outputs = yield* Effect.all([1, 2, 3].map(call), { concurrency: "unbounded" })
      expect(outputs).toEqual([10, 20, 30])
      expect(batches).toEqual([[1, 2, 3]])
    })
  )

  it.live("calls made while the batches in flight are at the limit wait for the next batch", () =>
    Effect.gen(function* () {
      const { batches, release, run } = yield* recorder
      const call = yield* Batched.make({ run, maxBatch: 100, maxInFlight: 1 })
      const first = yield* Effect.fork(call(1))
      yield* turn
      const later = yield* Effect.fork(Effect.all([2, 3, 4].map(call), { concurrency: "unbounded" }))
      yield* turn
      expect(batches).toEqual([[1]])
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe(10)
      expect(yield* Fiber.join(later)).toEqual([20, 30, 40])
      expect(batches).toEqual([[1], [2, 3, 4]])
    })
  )

  it.live("a batch holds at most maxBatch calls", () =>
    Effect.gen(function* () {
      const { batches, release, run } = yield* recorder
      yield* Deferred.succeed(release, undefined)
      const call = yield* Batched.make({ run, maxBatch: 2, maxInFlight: 4 })
      const outputs = yield* Effect.all([1, 2, 3, 4, 5].map(call), { concurrency: "unbounded" })
      expect(outputs).toEqual([10, 20, 30, 40, 50])
      expect(batches).toEqual([[1, 2], [3, 4], [5]])
    })
  )

  it.live("when a batch fails, each of its calls runs again alone and gets its own outcome", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const run = (inputs: ReadonlyArray<number>) =>
        Effect.sync(() => batches.push(inputs)).pipe(
          Effect.zipRight(inputs.includes(2) ? Effect.fail(`refused ${inputs.join(",")}`) : Effect.void),
          Effect.as(inputs.map((n) => n * 10))
        )
      const call = yield* Batched.make({ run, maxBatch: 100, maxInFlight: 1 })
      const exits = yield* Effect.all(
        [1, 2, 3].map((n) => Effect.exit(call(n))),
        { concurrency: "unbounded" }
      )
      expect(exits).toEqual([Exit.succeed(10), Exit.fail("refused 2"), Exit.succeed(30)])
      expect(batches).toEqual([[1, 2, 3], [1], [2], [3]])
    })
  )

  it.live("a call interrupted while it waits leaves the queue", () =>
    Effect.gen(function* () {
      const { batches, release, run } = yield* recorder
      const call = yield* Batched.make({ run, maxBatch: 100, maxInFlight: 1 })
      const first = yield* Effect.fork(call(1))
      yield* turn
      const gone = yield* Effect.fork(call(2))
      const kept = yield* Effect.fork(call(3))
      yield* turn
      yield* Fiber.interrupt(gone)
      yield* Deferred.succeed(release, undefined)
      expect([yield* Fiber.join(first), yield* Fiber.join(kept)]).toEqual([10, 30])
      expect(batches).toEqual([[1], [3]])
    })
  )

  it.live("a call made while maxWaiting calls wait fails at once, as the database unavailable", () =>
    Effect.gen(function* () {
      const { batches, release, run } = yield* recorder
      const call = yield* Batched.make({ run, maxBatch: 256, maxInFlight: 1 })
      const first = yield* Effect.fork(call(0))
      yield* turn
      // The first batch holds the only place at the database: these all wait.
      const inputs = Array.from({ length: Batched.maxWaiting }, (_, i) => i + 1)
      const waiting = yield* Effect.fork(Effect.all(inputs.map(call), { concurrency: "unbounded" }))
      yield* turn
      const refused = yield* Effect.exit(call(-1))
      const defect = Exit.isFailure(refused) ? Cause.squash(refused.cause) : undefined
      expect(defect).toBeInstanceOf(Batched.QueueFull)
      expect(DatabaseUnavailable.is(defect)).toBe(true)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe(0)
      expect(yield* Fiber.join(waiting)).toEqual(inputs.map((n) => n * 10))
      expect(batches.flat()).toEqual([0, ...inputs])
      // Once the queue has drained there is room again.
      expect(yield* call(7)).toBe(70)
    })
  )

  it.live("calls that gave up waiting make room for others", () =>
    Effect.gen(function* () {
      const { release, run } = yield* recorder
      const call = yield* Batched.make({ run, maxBatch: 100, maxInFlight: 1, maxWaiting: 2 })
      const first = yield* Effect.fork(call(1))
      yield* turn
      const gone = yield* Effect.fork(call(2))
      const kept = yield* Effect.fork(call(3))
      yield* turn
      expect(Exit.isFailure(yield* Effect.exit(call(4)))).toBe(true)
      yield* Fiber.interrupt(gone)
      const late = yield* Effect.fork(call(5))
      yield* turn
      yield* Deferred.succeed(release, undefined)
      expect([yield* Fiber.join(first), yield* Fiber.join(kept), yield* Fiber.join(late)]).toEqual([
        10, 30, 50
      ])
    })
  )
})
