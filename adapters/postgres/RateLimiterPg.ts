import { Effect, Layer, Schema } from "effect"
import { RateLimiter } from "../../application/ports/RateLimiter.js"
import * as Tracing from "../../application/Tracing.js"
import * as FixedWindow from "../../domain/FixedWindow.js"
import { PgPool } from "./PgPool.js"
import * as Prepared from "./Prepared.js"
import { decodeFirst } from "./Rows.js"

const Count = Schema.Struct({ count: Schema.Number })

/** $1 key, $2 start of the current window. Every registration runs it. */
const consumeStatement = Prepared.statement(
  "consume_rate_limit",
  `INSERT INTO oauth.rate_limits (key, window_start, count) VALUES ($1, $2, 1)
   ON CONFLICT (key) DO UPDATE SET
     count = CASE WHEN oauth.rate_limits.window_start = EXCLUDED.window_start
                  THEN oauth.rate_limits.count + 1 ELSE 1 END,
     window_start = EXCLUDED.window_start
   RETURNING count`
)

/** One upsert per request: the counter resets when the stored window is not the current one. */
export const layer = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const pool = yield* PgPool
    return {
      consume: (key, limit, now) => {
        const start = FixedWindow.startOf(now, limit.window)
        return Prepared.run(pool, consumeStatement, [key, new Date(start)]).pipe(
          decodeFirst(Count),
          Effect.map((row) =>
            FixedWindow.verdict(row._tag === "Some" ? row.value.count : 1, start, limit, now)
          ),
          Tracing.span("RateLimiterPg.consume", Prepared.span)
        )
      }
    }
  })
)
