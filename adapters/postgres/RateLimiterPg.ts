import { Effect, Layer, Schema } from "effect"
import { type Limit, RateLimiter, type Verdict } from "../../application/ports/RateLimiter.js"
import * as Tracing from "../../application/Tracing.js"
import * as FixedWindow from "../../domain/FixedWindow.js"
import * as Batched from "./Batched.js"
import { PgPool } from "./PgPool.js"
import * as Prepared from "./Prepared.js"
import { decodeAll } from "./Rows.js"

const Counted = Schema.Struct({ key: Schema.String, count: Schema.Number })

/**
 * $1 keys (distinct), $2 the start of each key's current window, $3 how many requests each key
 * makes in this batch. The counter starts again when the stored window is not the current one.
 */
const consumeStatement = Prepared.statement(
  "consume_rate_limits",
  `INSERT INTO oauth.rate_limits AS r (key, window_start, count)
   SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::integer[])
   ON CONFLICT (key) DO UPDATE SET
     count = CASE WHEN r.window_start = EXCLUDED.window_start
                  THEN r.count + EXCLUDED.count ELSE EXCLUDED.count END,
     window_start = EXCLUDED.window_start
   RETURNING key, count`
)

interface Consume {
  readonly key: string
  readonly limit: Limit
  readonly now: Date
}

/** The requests of one batch, by key, in the order they came. */
const byKey = (inputs: ReadonlyArray<Consume>) => {
  const groups = new Map<string, { windowStart: number; readonly positions: Array<number> }>()
  inputs.forEach((input, position) => {
    const start = FixedWindow.startOf(input.now, input.limit.window)
    const group = groups.get(input.key)
    if (group === undefined) groups.set(input.key, { windowStart: start, positions: [position] })
    else {
      // A batch that straddles a window boundary counts all of its requests in the newer window.
      group.windowStart = Math.max(group.windowStart, start)
      group.positions.push(position)
    }
  })
  return groups
}

/**
 * Registrations arriving together share one upsert (Batched.ts). Each learns the count as it
 * would have been had the requests run one after another: the k-th of n requests for a key sees
 * the stored count minus n, plus k.
 */
export const layer = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const pool = yield* PgPool
    const consumeAll = yield* Batched.make({
      maxBatch: 256,
      maxInFlight: 2,
      run: (inputs: ReadonlyArray<Consume>) => {
        const groups = byKey(inputs)
        const keys = [...groups.keys()]
        const starts = keys.map((key) => new Date(groups.get(key)?.windowStart ?? 0))
        const counts = keys.map((key) => groups.get(key)?.positions.length ?? 0)
        return Prepared.run(pool, consumeStatement, [keys, starts, counts]).pipe(
          decodeAll(Counted),
          Effect.map((rows) => {
            const totals = new Map(rows.map((row) => [row.key, row.count]))
            const verdicts: Array<Verdict> = []
            for (const [key, group] of groups) {
              const total = totals.get(key) ?? group.positions.length
              group.positions.forEach((position, k) => {
                const input = inputs[position]
                if (input === undefined) return
                const count = total - group.positions.length + k + 1
                verdicts[position] = FixedWindow.verdict(count, group.windowStart, input.limit, input.now)
              })
            }
            return verdicts
          })
        )
      }
    })
    return {
      consume: (key, limit, now) =>
        consumeAll({ key, limit, now }).pipe(Tracing.span("RateLimiterPg.consume", Prepared.span))
    }
  })
)
