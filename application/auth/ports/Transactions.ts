import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * Runs an effect's storage writes as one unit: all of them, or none when it fails. A use case
 * that must not leave half its writes behind — a user without the mail that confirms them —
 * wraps them in `run`. In the Postgres adapter that is one transaction, which every statement
 * of the auth storage adapters joins: those that concurrent requests share (SharedStatements.ts)
 * run shared only outside one, and the row locks a read takes (`SessionStore.lockPresented`)
 * last until it ends. The memory adapter runs the effect as it is: its writes are single steps,
 * and tests that need a rollback run on Postgres.
 */
export class Transactions extends Context.Tag("latchkey/auth/Transactions")<
  Transactions,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>() {}
