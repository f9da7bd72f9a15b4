import { Context, type Effect, type Option } from "effect"
import type { ClientId, SecretHash, UserId } from "../../../domain/Ids.js"
import type { PendingConsent } from "../../../domain/oauth/PendingConsent.js"

/** Which users approved which clients, and logins waiting for that approval. */
export class ConsentStore extends Context.Tag("latchkey/oauth/ConsentStore")<
  ConsentStore,
  {
    readonly hasConsent: (userId: UserId, clientId: ClientId) => Effect.Effect<boolean>
    readonly grant: (userId: UserId, clientId: ClientId, now: Date) => Effect.Effect<void>
    readonly park: (pending: PendingConsent) => Effect.Effect<void>
    /** Removes and returns the pending consent if not expired; single use like a pending login. */
    readonly take: (tokenHash: SecretHash, now: Date) => Effect.Effect<Option.Option<PendingConsent>>
    readonly purge: (now: Date) => Effect.Effect<number>
  }
>() {}
