import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import * as Migrations from "../postgres/Migrations.js"

/** `latchkey oauth migrate`: the oauth spec requires the schema before the service starts. */
export const command = Command.make("migrate", {}, () =>
  Effect.gen(function* () {
    const applied = yield* Migrations.run("oauth")
    const status = yield* Migrations.status("oauth")
    yield* Console.log(
      applied.length === 0
        ? `oauth schema is up to date (version ${status.applied})`
        : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}; oauth schema is at version ${status.applied}`
    )
  })
).pipe(Command.withDescription("Apply the oauth service's database schema (idempotent)."))
