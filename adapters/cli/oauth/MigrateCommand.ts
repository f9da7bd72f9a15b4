import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import type { ClientId } from "../../../domain/Ids.js"
import * as Migrations from "../../postgres/Migrations.js"

/**
 * `latchkey oauth migrate`: the oauth spec requires the schema before the service starts; it
 * also seeds the built-in public CLI client. Idempotent.
 */
export const make = (cliClientId: Effect.Effect<ClientId, unknown>) =>
  Command.make("migrate", {}, () =>
    Effect.gen(function* () {
      const applied = yield* Migrations.run("oauth")
      const status = yield* Migrations.status("oauth")
      yield* Console.log(
        applied.length === 0
          ? `oauth schema is up to date (version ${status.applied})`
          : `applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}; oauth schema is at version ${status.applied}`
      )
      const id = yield* cliClientId
      const seeded = yield* ManageClients.seedBuiltinCliClient(id)
      yield* Console.log(
        seeded ? `seeded the built-in CLI client "${id}"` : `built-in CLI client "${id}" is present`
      )
    })
  ).pipe(
    Command.withDescription("Apply the oauth database schema and seed the built-in CLI client (idempotent).")
  )
