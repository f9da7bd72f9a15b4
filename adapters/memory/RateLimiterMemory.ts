import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { RateLimiter } from "../../application/ports/RateLimiter.js"
import * as FixedWindow from "../../domain/FixedWindow.js"

/** Per-process counters: for tests and a single instance only. */
export const layer = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const windows = yield* Ref.make(new Map<string, { readonly start: number; readonly count: number }>())
    return {
      consume: (key, limit, now) =>
        Ref.modify(windows, (map) => {
          const start = FixedWindow.startOf(now, limit.window)
          const current = map.get(key)
          const count = current !== undefined && current.start === start ? current.count + 1 : 1
          const next = new Map(map).set(key, { start, count })
          return [FixedWindow.verdict(count, start, limit, now), next]
        })
    }
  })
)
