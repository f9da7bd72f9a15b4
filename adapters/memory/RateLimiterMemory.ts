import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Limit, RateLimiter } from "../../application/ports/RateLimiter.js"
import * as FixedWindow from "../../domain/FixedWindow.js"
import * as BoundedCache from "../BoundedCache.js"

/**
 * Keys counted at once. Keys are what callers limit by, client addresses among them, so the
 * counters must not grow with every address that ever came. Past the limit the least recently
 * counted key is forgotten, and with it its count: far more keys than a single instance sees
 * active within one window, at under a hundred bytes each.
 */
export const maxKeys = 10_000

interface Window {
  readonly start: number
  /** Epoch milliseconds at which the window ends, and the count no longer matters. */
  readonly end: number
  readonly count: number
}

/** The limiter, and how many keys it is counting (for tests). */
export const make = Effect.sync(() => {
  const windows = BoundedCache.make<string, Window>({ maxEntries: maxKeys })

  // Windows of keys that stopped coming go as soon as they end, from the least recently used
  // on: each call drops what has ended at the front, so a call costs O(1) on average. An ended
  // window behind a live one waits its turn, within `maxKeys`.
  const dropEnded = (now: number) => {
    for (let key = windows.oldest(); key !== undefined; key = windows.oldest()) {
      const window = windows.peek(key)
      if (window !== undefined && window.end > now) return
      windows.delete(key)
    }
  }

  return {
    consume: (key: string, limit: Limit, now: Date) =>
      Effect.sync(() => {
        dropEnded(now.getTime())
        const start = FixedWindow.startOf(now, limit.window)
        const current = windows.get(key)
        const count = current !== undefined && current.start === start ? current.count + 1 : 1
        windows.set(key, { start, end: start + Duration.toMillis(limit.window), count })
        return FixedWindow.verdict(count, start, limit, now)
      }),
    size: () => windows.size
  }
})

/** Per-process counters: for tests and a single instance only. */
export const layer = Layer.effect(RateLimiter, make)
