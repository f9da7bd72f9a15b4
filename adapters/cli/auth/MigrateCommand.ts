import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Migrations from "../../postgres/Migrations.js"
import * as SourceOptions from "./SourceOptions.js"

/**
 * `latchkey auth migrate`: the migrations `latchkey auth serve` applies at start, on their own
 * (idempotent; safe beside running instances), in the database `target` reads from the sources.
 */
export const make = (target: (sources: SourceOptions.Sources) => Effect.Effect<Migrations.Target, unknown>) =>
  Command.make("migrate", SourceOptions.sources, (sources) =>
    Effect.gen(function* () {
      const where = yield* target(sources)
      const applied = yield* Migrations.run(where)
      const status = yield* Migrations.status(where)
      yield* Console.log(
        applied.length === 0
          ? `auth schema is up to date (version ${status.applied})`
          : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}; auth schema is at version ${status.applied}`
      )
    })
  ).pipe(Command.withDescription("Apply the auth database schema (the service also does at start)."))
