import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { type Limit, RateLimiter, type Verdict } from "../../application/ports/RateLimiter.js"
import * as Telemetry from "../../application/Telemetry.js"
import * as FixedWindow from "../../domain/FixedWindow.js"
import { PgPool } from "./PgPool.js"
import * as Prepared from "./Prepared.js"
import * as SharedStatements from "./SharedStatements.js"

const Counted = Schema.Struct({ key: Schema.String, count: Schema.Number })

/**
 * $1 keys (distinct), $2 the start of each key's current window, $3 how many requests each key
 * makes in this batch. The counter starts again when the stored window is not the current one.
 * One statement per table: each service keeps its counters in its own schema.
 */
const consumeStatement = (table: string) =>
  Prepared.statement(
    `consume_rate_limits_${table.replaceAll(".", "_")}`,
    `INSERT INTO ${table} AS r (key, window_start, count)
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

/** The requests of one batch, by key, in the order they came, with their place in the batch. */
const byKey = (inputs: ReadonlyArray<Consume>) => {
  const groups = new Map<
    string,
    { windowStart: number; readonly requests: Array<{ readonly input: Consume; readonly position: number }> }
  >()
  inputs.forEach((input, position) => {
    const start = FixedWindow.startOf(input.now, input.limit.window)
    const group = groups.get(input.key)
    if (group === undefined) groups.set(input.key, { windowStart: start, requests: [{ input, position }] })
    else {
      // A batch that straddles a window boundary counts all of its requests in the newer window.
      group.windowStart = Math.max(group.windowStart, start)
      group.requests.push({ input, position })
    }
  })
  return groups
}

/**
 * Requests arriving together share one upsert (SharedStatements.ts). Each learns the count as it would
 * have been had the requests run one after another: the k-th of n requests for a key sees the
 * stored count minus n, plus k. `table` is a schema-qualified name the code chooses (its
 * migrations create it), never anything a request sends.
 */
export const layerFor = (table: string) =>
  Layer.effect(
    RateLimiter,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pool = yield* PgPool
      const statement = consumeStatement(table)
      const consumeAll = yield* SharedStatements.make({
        sql,
        pool,
        statement,
        parameters: (inputs: ReadonlyArray<Consume>) => {
          const keys: Array<string> = []
          const starts: Array<Date> = []
          const counts: Array<number> = []
          for (const [key, group] of byKey(inputs)) {
            keys.push(key)
            starts.push(new Date(group.windowStart))
            counts.push(group.requests.length)
          }
          return [keys, starts, counts]
        },
        row: Counted,
        answers: (rows, inputs) => {
          const totals = new Map(rows.map((row) => [row.key, row.count]))
          const verdicts: Array<Verdict> = []
          for (const [key, { windowStart, requests }] of byKey(inputs)) {
            const total = totals.get(key) ?? requests.length
            requests.forEach(({ input, position }, k) => {
              const count = total - requests.length + k + 1
              verdicts[position] = FixedWindow.verdict(count, windowStart, input.limit, input.now)
            })
          }
          return verdicts
        }
      })
      return {
        consume: Telemetry.fn("RateLimiterPg.consume")((key, limit, now) => consumeAll({ key, limit, now }))
      }
    })
  )

/** The oauth service's counters. */
export const layer = layerFor("oauth.rate_limits")
