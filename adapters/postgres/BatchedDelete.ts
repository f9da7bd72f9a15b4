import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { decodeFirst } from "./Rows.js"

/**
 * Rows a reaper deletes in one statement. Every part goes into the SQL text as it is: callers
 * write their own table names (schema-qualified, a configured prefix checked at start) and
 * conditions, with values only as numbered parameters.
 */
export interface Batch {
  /** The qualified table, e.g. `oauth.sessions`. */
  readonly table: string
  /** The key column that names a row. */
  readonly key: string
  /** Which rows may go, over the table aliased `candidate`, e.g. `candidate.expires_at <= $1`. */
  readonly where: string
  /** The most rows one statement deletes: a parameter, e.g. `$2`. */
  readonly limit: string
}

/**
 * At most `limit` rows of the batch deleted, passing over the rows another transaction holds
 * locked: the reapers of several instances then share the work, and none waits behind a request
 * that holds a row it is about to change (or delete itself). Without a `RETURNING`, so that
 * callers say what they want back.
 */
export const deleteText = ({ table, key, where, limit }: Batch) =>
  `DELETE FROM ${table} WHERE ${key} IN (
     SELECT candidate.${key} FROM ${table} AS candidate WHERE ${where}
     LIMIT ${limit} FOR UPDATE SKIP LOCKED
   )`

/** The batch deleted, answering one row: how many went (`count`). */
export const countText = (batch: Batch) =>
  `WITH gone AS (${deleteText(batch)} RETURNING 1) SELECT count(*)::int AS count FROM gone`

const CountRow = Schema.Struct({ count: Schema.Int })

/** The batch deleted with these parameters; how many rows went. */
export const count = (sql: SqlClient.SqlClient, batch: Batch, parameters: ReadonlyArray<unknown>) =>
  sql
    .unsafe(countText(batch), parameters)
    .pipe(decodeFirst(CountRow), Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.count })))
