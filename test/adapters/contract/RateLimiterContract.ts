import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { RateLimiter } from "../../../application/ports/RateLimiter.js"
import * as Time from "../../../domain/Time.js"
import * as Fixtures from "../../support/oauth/Fixtures.js"
import { concurrently, type It } from "./Storage.js"

const hourly = { max: 3, window: Duration.hours(1) }

export const rateLimiterContract = (it: It) =>
  describe("RateLimiter", () => {
    it.effect("allows max requests per window, then says when to retry, and resets in the next window", () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const key = `test:${randomUUID()}`
        const at = Time.plus(Fixtures.t0, "10 minutes")
        for (let i = 0; i < 3; i++) expect((yield* limiter.consume(key, hourly, at)).allowed).toBe(true)
        const refused = yield* limiter.consume(key, hourly, at)
        expect(refused.allowed).toBe(false)
        expect(Duration.toMinutes(refused.retryAfter)).toBe(50)
        expect((yield* limiter.consume(`test:${randomUUID()}`, hourly, at)).allowed).toBe(true)
        expect((yield* limiter.consume(key, hourly, Time.plus(Fixtures.t0, "1 hour"))).allowed).toBe(true)
      })
    )

    it.effect(`counts ${concurrently} concurrent requests exactly`, () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const key = `test:${randomUUID()}`
        const verdicts = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            limiter.consume(key, { max: 10, window: Duration.hours(1) }, Fixtures.t0)
          ),
          { concurrency: "unbounded" }
        )
        expect(verdicts.filter((v) => v.allowed)).toHaveLength(10)
      })
    )

    it.effect("counts concurrent requests of several keys each on its own", () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimiter
        const keys = Array.from({ length: 5 }, () => `test:${randomUUID()}`)
        const limit = { max: 4, window: Duration.hours(1) }
        const requests = keys.flatMap((key, i) => Array.from({ length: 2 + i }, () => key))
        const verdicts = yield* Effect.all(
          requests.map((key) => Effect.map(limiter.consume(key, limit, Fixtures.t0), (v) => ({ key, v }))),
          { concurrency: "unbounded" }
        )
        const allowed = keys.map((key) => verdicts.filter((r) => r.key === key && r.v.allowed).length)
        expect(allowed).toEqual([2, 3, 4, 4, 4])
        const refused = verdicts.filter((r) => !r.v.allowed)
        expect(refused).toHaveLength(3)
        expect(refused.every((r) => Duration.toMinutes(r.v.retryAfter) === 60)).toBe(true)
      })
    )
  })
