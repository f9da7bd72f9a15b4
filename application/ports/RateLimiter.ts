import { Context, type Duration, type Effect } from "effect"

export interface Limit {
  readonly max: number
  readonly window: Duration.Duration
}

export interface Verdict {
  readonly allowed: boolean
  /** When the caller may try again; zero when allowed. */
  readonly retryAfter: Duration.Duration
}

/** Counts requests per key across every instance of the service (shared state, not process memory). */
export class RateLimiter extends Context.Tag("latchkey/RateLimiter")<
  RateLimiter,
  { readonly consume: (key: string, limit: Limit, now: Date) => Effect.Effect<Verdict> }
>() {}
