import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Str from "effect/String"
import type { StatementPool } from "./PgPool.js"

/**
 * A statement of the hot paths, run on the shared `pg` pool (PgPool) rather than through
 * `@effect/sql`: the call skips its statement compiler and connection bookkeeping. Where the
 * pool's connections are the service's own it runs by name, so PostgreSQL parses and plans it
 * once per connection instead of on every call; behind a pooler in transaction mode
 * (`SQL_PREPARED_STATEMENTS` / `AUTHSVC_DB_PREPARED_STATEMENTS` false) it runs unnamed. Either
 * way it takes a connection of its own from the pool, never an open transaction's: a statement
 * that may run inside one goes through SharedStatements.ts, which runs it on the transaction's
 * connection then. Both services' hot paths use it, the shared statements among them;
 * docs/decisions/0005 and 0006 have the measurements.
 */
export interface Statement {
  readonly name: string
  readonly text: string
}

export const statement = (name: string, text: string): Statement => ({ name: `latchkey_${name}`, text })

/**
 * Rows come back camel-cased, like `@effect/sql`'s (Database.ts), so domain schemas decode them.
 * The names are the columns the statements in the code select, never anything a request sends,
 * so this map stays as small as they are; so do the statement names, which are constants too.
 */
const camelNames = new Map<string, string>()
const camel = (name: string) => {
  let cached = camelNames.get(name)
  if (cached === undefined) {
    cached = Str.snakeToCamel(name)
    camelNames.set(name, cached)
  }
  return cached
}

const camelCased = (row: Record<string, unknown>) => {
  const out: Record<string, unknown> = {}
  for (const key in row) out[camel(key)] = row[key]
  return out
}

/**
 * Whether a connection that failed a statement is fit for the next: the server refused the
 * statement (severity `ERROR`) and is ready for the next one. A `FATAL` answer (the session
 * terminated), or a socket or protocol failure, leaves the connection broken. (A server whose
 * messages are in another language names its severities in it too: its connections close after
 * any failure, as `pool.query` would close them.)
 */
const connectionSurvives = (cause: Error) => "severity" in cause && cause.severity === "ERROR"

/**
 * Runs a statement, by its name where the pool's connections are the service's own; the rows
 * are camel-cased. A failure is a `SqlError`, as from `@effect/sql`.
 *
 * The connection is taken and given back here rather than by `pool.query`, which closes a
 * connection after any failure: a refused statement (a unique violation, a step up whose session
 * moved) would cost the next statement a new connection and its named statements prepared
 * again, and on the embedded database, one session behind a single connection, the new one may
 * be refused while the old one is still closing.
 */
export const run = (
  pool: StatementPool,
  { name, text }: Statement,
  values: ReadonlyArray<unknown>
): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError> =>
  Effect.async((resume) => {
    const failed = (cause: Error) =>
      resume(Effect.fail(new SqlError({ cause, message: `statement ${name} failed` })))
    // Unnamed, the statement is parsed on every call but outlives no transaction (PgPool).
    const query = pool.namedStatements ? { name, text, values: [...values] } : { text, values: [...values] }
    pool.connect((connectFailure, client, release) => {
      if (connectFailure !== undefined || client === undefined) {
        return failed(connectFailure ?? new Error("the pool gave no connection"))
      }
      // Settled once: a connection that breaks mid-statement both emits `error` and fails the
      // statement, and its `error` unheard would end the process.
      let settled = false
      const broken = (cause: Error) => {
        if (settled) return
        settled = true
        release(cause)
        failed(cause)
      }
      client.once("error", broken)
      client.query<Record<string, unknown>>(query, (cause, result) => {
        client.removeListener("error", broken)
        if (settled) return
        settled = true
        if (cause) {
          release(connectionSurvives(cause) ? undefined : cause)
          failed(cause)
        } else {
          release()
          resume(Effect.succeed(result.rows.map(camelCased)))
        }
      })
    })
  })
