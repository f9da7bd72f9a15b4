import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"

export interface Limit {
  readonly max: number
  readonly window: Duration.Duration
}

export interface Verdict {
  readonly allowed: boolean
  /** How long until the caller may try again (the current window's end); zero when allowed. */
  readonly retryAfter: Duration.Duration
}

/**
 * Counts requests per key in fixed windows (`FixedWindow`): at most `max` per window, windows
 * starting at multiples of their length since the epoch; refused requests count too. The
 * Postgres adapter keeps the counts in the database, shared by every instance of the service;
 * the memory adapter counts per process, for tests.
 */
export class RateLimiter extends Context.Tag("latchkey/RateLimiter")<
  RateLimiter,
  { readonly consume: (key: string, limit: Limit, now: Date) => Effect.Effect<Verdict> }
>() {}
