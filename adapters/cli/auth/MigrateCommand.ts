import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Migrations from "../../postgres/Migrations.js"

/**
 * `latchkey auth migrate`: the migrations `latchkey auth serve` applies at start, on their own
 * (idempotent; safe beside running instances).
 */
export const make = (target: Effect.Effect<Migrations.Target, unknown>) =>
  Command.make("migrate", {}, () =>
    Effect.gen(function* () {
      const where = yield* target
      const applied = yield* Migrations.run(where)
      const status = yield* Migrations.status(where)
      yield* Console.log(
        applied.length === 0
          ? `auth schema is up to date (version ${status.applied})`
          : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}; auth schema is at version ${status.applied}`
      )
    })
  ).pipe(Command.withDescription("Apply the auth database schema (the service also does at start)."))
