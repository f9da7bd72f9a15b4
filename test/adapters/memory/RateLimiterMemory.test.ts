import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as RateLimiterMemory from "../../../adapters/memory/RateLimiterMemory.js"

/** One request a minute: a second one within the window is refused while its count is kept. */
const once = { max: 1, window: Duration.minutes(1) }

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

describe("RateLimiterMemory", () => {
  it.effect("counts at most maxKeys keys, forgetting the least recently counted", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiterMemory.make
      const limit = RateLimiterMemory.maxKeys
      const at = yield* now
      yield* limiter.consume("key-0", once, at)
      for (let n = 1; n < limit; n++) yield* limiter.consume(`key-${n}`, once, at)
      // Counted again, so key-1 is now the least recently counted.
      expect((yield* limiter.consume("key-0", once, at)).allowed).toBe(false)
      yield* limiter.consume(`key-${limit}`, once, at)
      expect(limiter.size()).toBe(limit)
      // key-1's count is gone: its second request is allowed as a first.
      expect((yield* limiter.consume("key-1", once, at)).allowed).toBe(true)
      expect((yield* limiter.consume("key-0", once, at)).allowed).toBe(false)
      expect(limiter.size()).toBe(limit)
    })
  )

  it.effect("drops the windows that have ended", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiterMemory.make
      yield* limiter.consume("a", once, yield* now)
      yield* limiter.consume("b", once, yield* now)
      expect(limiter.size()).toBe(2)
      yield* TestClock.adjust("2 minutes")
      expect((yield* limiter.consume("c", once, yield* now)).allowed).toBe(true)
      expect(limiter.size()).toBe(1)
      expect((yield* limiter.consume("c", once, yield* now)).allowed).toBe(false)
    })
  )
})
