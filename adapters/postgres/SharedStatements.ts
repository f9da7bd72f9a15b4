import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import type Pg from "pg"
import * as Batched from "./Batched.js"
import * as Prepared from "./Prepared.js"
import { decodeAll } from "./Rows.js"

/**
 * `shared` where the caller has no transaction open, `own` inside one. Batched statements run
 * on the pool's other connections: inside a transaction they would not see its uncommitted
 * writes, and a write among them could wait on the transaction's own locks.
 */
export const outsideTransaction = <A, E>(
  shared: Effect.Effect<A, E>,
  own: Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
    Option.isNone(open) ? shared : own
  )

export interface LookupOptions<K, A, I> {
  readonly pool: Pg.Pool
  /** Takes the batch's distinct keys as its one parameter, `$1`, an array. */
  readonly statement: Prepared.Statement
  readonly row: Schema.Schema<A, I>
  /** The key a decoded row answers. */
  readonly keyOf: (row: A) => K
}

/**
 * A read by key that the requests arriving together share (Batched.ts): one prepared
 * statement for the batch's distinct keys, each caller given the row of its own key, if any.
 */
export const lookup = <K, A, I>(options: LookupOptions<K, A, I>) =>
  Batched.make({
    maxBatch: 256,
    maxInFlight: 2,
    run: (keys: ReadonlyArray<K>) =>
      Prepared.run(options.pool, options.statement, [[...new Set(keys)]]).pipe(
        decodeAll(options.row),
        Effect.map((rows) => {
          const byKey = new Map(rows.map((row) => [options.keyOf(row), row]))
          return keys.map((key) => Option.fromNullable(byKey.get(key)))
        })
      )
  })
