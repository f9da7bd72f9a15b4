import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Batched from "./Batched.js"
import type { StatementPool } from "./PgPool.js"
import * as Prepared from "./Prepared.js"
import { decodeAll } from "./Rows.js"

export interface Options<I, O, A, R> {
  readonly sql: SqlClient.SqlClient
  readonly pool: StatementPool
  /** Takes its inputs as arrays with an element per input (`unnest`), or as one array of keys. */
  readonly statement: Prepared.Statement
  /** The statement's parameters for some inputs. */
  readonly parameters: (inputs: ReadonlyArray<I>) => ReadonlyArray<unknown>
  readonly row: Schema.Schema<A, R>
  /** Each input's answer, in the inputs' order, from the decoded rows of their statement. */
  readonly answers: (rows: ReadonlyArray<A>, inputs: ReadonlyArray<I>) => ReadonlyArray<O>
}

/** Shares one statement among the calls that arrive together; alone inside a transaction. */
const share = <I, O, A, R>(options: {
  readonly sql: SqlClient.SqlClient
  readonly name: string
  /** Runs the statement outside any transaction, for a batch of inputs. */
  readonly shared: (parameters: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
  readonly text: string
  readonly parameters: (inputs: ReadonlyArray<I>) => ReadonlyArray<unknown>
  readonly row: Schema.Schema<A, R>
  readonly answers: (rows: ReadonlyArray<A>, inputs: ReadonlyArray<I>) => ReadonlyArray<O>
}) =>
  Effect.map(
    Batched.make({
      maxBatch: 256,
      maxInFlight: 2,
      run: (inputs: ReadonlyArray<I>) =>
        options.shared(options.parameters(inputs)).pipe(
          decodeAll(options.row),
          Effect.map((rows) => options.answers(rows, inputs))
        )
    }),
    (shared) => {
      const alone = (input: I) =>
        options.sql.unsafe(options.text, options.parameters([input])).pipe(
          decodeAll(options.row),
          Effect.flatMap((rows) => {
            const [answer] = options.answers(rows, [input])
            return answer === undefined
              ? Effect.dieMessage(`${options.name} answered no input`)
              : Effect.succeed(answer)
          })
        )
      return (input: I): Effect.Effect<O> =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
          Option.isNone(open) ? shared(input) : alone(input)
        )
    }
  )

/**
 * A statement for many inputs that the requests arriving together share (Batched.ts), where the
 * caller has no transaction open. Inside one, the same statement runs for the one input on the
 * transaction's connection: on the pool's other connections it would not see the transaction's
 * uncommitted writes, and a write could wait on the transaction's own locks. This module is the
 * storage adapters' only way into Batched.ts, so that this holds for every shared statement.
 */
export const make = <I, O, A, R>(options: Options<I, O, A, R>) =>
  share({
    ...options,
    name: options.statement.name,
    text: options.statement.text,
    shared: (parameters) => Prepared.run(options.pool, options.statement, parameters)
  })

export interface UnpreparedOptions<I, O, A, R> {
  readonly sql: SqlClient.SqlClient
  /** Names the statement in defects. */
  readonly name: string
  readonly text: string
  readonly parameters: (inputs: ReadonlyArray<I>) => ReadonlyArray<unknown>
  readonly row: Schema.Schema<A, R>
  readonly answers: (rows: ReadonlyArray<A>, inputs: ReadonlyArray<I>) => ReadonlyArray<O>
}

/**
 * `make` for a statement planned at every call, through `@effect/sql`: for a statement whose
 * best plan changes as its tables grow from empty, which a plan kept per connection would miss.
 */
export const unprepared = <I, O, A, R>(options: UnpreparedOptions<I, O, A, R>) =>
  share({ ...options, shared: (parameters) => options.sql.unsafe(options.text, parameters) })

export interface LookupOptions<K, A, R> {
  readonly sql: SqlClient.SqlClient
  readonly pool: StatementPool
  /** Takes the distinct keys asked for as its one parameter, `$1`, an array. */
  readonly statement: Prepared.Statement
  readonly row: Schema.Schema<A, R>
  /** The key a decoded row answers. */
  readonly keyOf: (row: A) => K
}

/** A read by key (`make`): each caller gets the row of its own key, if any. */
export const lookup = <K, A, R>(options: LookupOptions<K, A, R>) =>
  make({
    ...options,
    parameters: (keys: ReadonlyArray<K>) => [[...new Set(keys)]],
    answers: (rows, keys) => {
      const byKey = new Map(rows.map((row) => [options.keyOf(row), row]))
      return keys.map((key) => Option.fromNullable(byKey.get(key)))
    }
  })
