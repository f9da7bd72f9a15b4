import { availableParallelism } from "node:os"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as HashingGate from "../../../adapters/crypto/HashingGate.js"

/**
 * Stand-in for a native hash: it counts itself while it runs, reports its start, and runs until
 * the test opens `release`. Nothing here waits for time to pass. The test's scope opens
 * `release` at the end too: a failed assertion must not leave calls the gate will not let be
 * interrupted hanging the test.
 */
const slowWork = Effect.gen(function* () {
  const release = yield* Deferred.make<void>()
  yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
  const started = yield* Queue.unbounded<number>()
  let running = 0
  let mostAtOnce = 0
  let ended = 0
  const work = (id: number) =>
    Effect.gen(function* () {
      running++
      mostAtOnce = Math.max(mostAtOnce, running)
      yield* Queue.offer(started, id)
      yield* Deferred.await(release)
      running--
      ended++
      return id
    })
  return {
    work,
    started,
    release: Deferred.succeed(release, undefined),
    running: () => running,
    mostAtOnce: () => mostAtOnce,
    ended: () => ended
  }
})

/** Waits until a forked call blocks, in the gate's queue or in its work, or has ended. */
const blocked = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.repeat(Effect.zipRight(Effect.yieldNow(), fiber.status), {
    until: (status) => status._tag !== "Running"
  })

const diesBusy = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) &&
  [...Cause.defects(exit.cause)].some((defect) => defect instanceof HashingGate.HashingBusy)

/** Whether a call dies with HashingBusy without waiting: one let in would block instead. */
const refused = <A, E>(call: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(call)
    yield* blocked(fiber)
    const exit = yield* Fiber.poll(fiber)
    return Option.isSome(exit) && diesBusy(exit.value)
  })

describe("HashingGate", () => {
  it.scoped("runs at most `concurrency` calls at once; the others wait their turn", () =>
    Effect.gen(function* () {
      const slow = yield* slowWork
      const gate = yield* HashingGate.make({ concurrency: 3, queue: 20 })
      const calls = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, id) => id),
        (id) => Effect.fork(gate.run(slow.work(id)))
      )
      yield* Queue.takeN(slow.started, 3)
      yield* Effect.forEach(calls, blocked)
      expect(slow.running()).toBe(3)
      expect(yield* Queue.size(slow.started)).toBe(0)

      yield* slow.release
      expect(yield* Effect.forEach(calls, Fiber.join)).toEqual(Array.from({ length: 10 }, (_, id) => id))
      expect(slow.mostAtOnce()).toBe(3)
      expect(slow.ended()).toBe(10)
    })
  )

  it.scoped(
    "a call beyond the queue dies at once with HashingBusy, and one is taken again when a place frees",
    () =>
      Effect.gen(function* () {
        const slow = yield* slowWork
        const gate = yield* HashingGate.make({ concurrency: 1, queue: 2 })
        const first = yield* Effect.fork(gate.run(slow.work(0)))
        yield* Queue.take(slow.started)
        const waiting = yield* Effect.forEach([1, 2], (id) => Effect.fork(gate.run(slow.work(id))))
        yield* Effect.forEach(waiting, blocked)

        expect(yield* refused(gate.run(slow.work(3)))).toBe(true)
        expect(slow.mostAtOnce()).toBe(1)

        yield* slow.release
        expect(yield* Fiber.join(first)).toBe(0)
        expect(yield* Effect.forEach(waiting, Fiber.join)).toEqual([1, 2])
        expect(yield* gate.run(slow.work(4))).toBe(4)
      })
  )

  it.scoped("a caller interrupted while waiting leaves the queue", () =>
    Effect.gen(function* () {
      const slow = yield* slowWork
      const gate = yield* HashingGate.make({ concurrency: 1, queue: 1 })
      const first = yield* Effect.fork(gate.run(slow.work(0)))
      yield* Queue.take(slow.started)
      const gaveUp = yield* Effect.fork(gate.run(slow.work(1)))
      yield* blocked(gaveUp)
      yield* Fiber.interrupt(gaveUp)

      const next = yield* Effect.fork(gate.run(slow.work(2)))
      yield* blocked(next)
      expect(yield* refused(gate.run(slow.work(3)))).toBe(true)

      yield* slow.release
      yield* Fiber.join(first)
      expect(yield* Fiber.join(next)).toBe(2)
      expect(slow.ended()).toBe(2)
    })
  )

  it.scoped("a caller interrupted while its work runs keeps the slot until the work ends", () =>
    Effect.gen(function* () {
      const slow = yield* slowWork
      const gate = yield* HashingGate.make({ concurrency: 1, queue: 0 })
      const running = yield* Effect.fork(gate.run(slow.work(0)))
      yield* Queue.take(slow.started)
      yield* Fiber.interruptFork(running)
      yield* blocked(running)

      // The native work would still be going on: its slot is not free.
      expect(yield* refused(gate.run(slow.work(1)))).toBe(true)

      yield* slow.release
      yield* Fiber.await(running)
      expect(slow.ended()).toBe(1)
      expect(yield* gate.run(slow.work(2))).toBe(2)
    })
  )

  it.effect("refuses a gate with no slot", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(HashingGate.make({ concurrency: 0 }))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    })
  )

  it("sizes itself to the CPUs", () => {
    expect(HashingGate.defaultConcurrency()).toBe(Math.max(1, availableParallelism()))
  })
})
