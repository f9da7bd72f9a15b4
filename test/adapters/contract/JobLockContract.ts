import { describe, expect } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { JobLock } from "../../../application/ports/JobLock.js"
import type { It } from "./Storage.js"

export const jobLockContract = (it: It) =>
  describe("JobLock", () => {
    it.effect("runs a job, and skips a second one with the same name while the first runs", () =>
      Effect.gen(function* () {
        const lock = yield* JobLock
        const started = yield* Deferred.make<void>()
        const finish = yield* Deferred.make<void>()
        const first = yield* Effect.fork(
          lock.runExclusive(
            "contract-job",
            Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(finish)).pipe(
              Effect.as("first")
            )
          )
        )
        yield* Deferred.await(started)
        const second = yield* lock.runExclusive("contract-job", Effect.succeed("second"))
        expect(Option.isNone(second)).toBe(true)
        yield* Deferred.succeed(finish, undefined)
        expect(yield* Fiber.join(first)).toEqual(Option.some("first"))
        expect(yield* lock.runExclusive("contract-job", Effect.succeed("third"))).toEqual(
          Option.some("third")
        )
      })
    )
  })
