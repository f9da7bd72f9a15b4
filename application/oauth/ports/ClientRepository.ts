import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId } from "../../../domain/Ids.js"
import type { Client } from "../../../domain/oauth/Client.js"

export class ClientAlreadyExists extends Schema.TaggedError<ClientAlreadyExists>()("ClientAlreadyExists", {
  clientId: ClientId
}) {}

/** OAuth clients of every origin (dynamic, operator-seeded, built-in, metadata document). */
export class ClientRepository extends Context.Tag("latchkey/oauth/ClientRepository")<
  ClientRepository,
  {
    readonly insert: (client: Client) => Effect.Effect<void, ClientAlreadyExists>
    /**
     * Inserts a client, or refreshes the stored one of the same id and origin from it (name,
     * type, redirect URIs, secret hash, key set URL) while keeping its `created_at` and
     * `last_used_at`; for clients defined elsewhere, such as metadata documents. Returns the
     * stored client. A client of another origin with that id is left alone: ClientAlreadyExists.
     */
    readonly upsert: (client: Client) => Effect.Effect<Client, ClientAlreadyExists>
    readonly findById: (id: ClientId) => Effect.Effect<Option.Option<Client>>
    /** Every client, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<Client>>
    /**
     * Removes the client with its codes, pending logins, consents (given and pending),
     * refresh-token families and access tokens; false when unknown.
     */
    readonly remove: (id: ClientId) => Effect.Effect<boolean>
    /** Stamps `last_used_at` (every authorize request does), which resets the idle timer. */
    readonly touch: (id: ClientId, now: Date) => Effect.Effect<void>
    /**
     * Removes at most `limit` clients that are idle at `now` (`Client.isIdle`), with everything
     * `remove` removes, passing over clients a request holds, and returns their ids.
     */
    readonly reapIdle: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<ClientId>>
  }
>() {}
