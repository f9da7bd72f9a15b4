import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Transactions } from "../../../application/auth/ports/Transactions.js"

/** The effect's own failure, told apart from the database's on the way out of the transaction. */
class Failed<E> {
  constructor(readonly error: E) {}
}

/**
 * One database transaction: `@effect/sql` runs every statement of the effect on the
 * transaction's connection, and a nested `run` (or an adapter's own transaction) becomes a
 * savepoint. The effect's failure or interruption rolls everything back; a failure of the
 * database itself is a defect, as everywhere in the storage adapters.
 */
export const layer = Layer.effect(
  Transactions,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    run: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      sql
        .withTransaction(Effect.mapError(effect, (error) => new Failed(error)))
        .pipe(
          Effect.catchAll(
            (error): Effect.Effect<never, E> =>
              error instanceof Failed ? Effect.fail(error.error) : Effect.die(error)
          )
        )
  }))
)
