import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { type Limit, RateLimiter } from "../../../application/ports/RateLimiter.js"
import * as Refusal from "./Refusal.js"

/**
 * One more request of `route` from `clientIp` under `limit`, counted in the database so that
 * every instance shares the count; past it, 429 `over_request_rate_limit`.
 */
export const consume = (route: string, clientIp: string, limit: Limit) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const verdict = yield* limiter.consume(
      `auth:${route}:${clientIp}`,
      limit,
      new Date(yield* Clock.currentTimeMillis)
    )
    if (!verdict.allowed) return yield* new Refusal.OverRequestRateLimit()
  })
