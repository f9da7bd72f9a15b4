import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ClientId, SecretHash, UserId } from "../../../domain/Ids.js"
import type { PendingConsent } from "../../../domain/oauth/PendingConsent.js"

/** Which users approved which clients, and logins waiting for that approval. */
export class ConsentStore extends Context.Tag("latchkey/oauth/ConsentStore")<
  ConsentStore,
  {
    /**
     * Whether this user has approved this client for every one of `scopes` (for none: any
     * approval). Approvals do not expire.
     */
    readonly hasConsent: (
      userId: UserId,
      clientId: ClientId,
      scopes: ReadonlyArray<string>
    ) => Effect.Effect<boolean>
    /**
     * Records that the user approved the client for `scopes` at `now`; approving again adds its
     * scopes to those approved and keeps the first approval's time. An approval goes only with
     * its client (`ClientRepository.remove`).
     */
    readonly grant: (
      userId: UserId,
      clientId: ClientId,
      scopes: ReadonlyArray<string>,
      now: Date
    ) => Effect.Effect<void>
    /** Parks a login waiting for approval under a fresh token hash (the consent form's). */
    readonly park: (pending: PendingConsent) => Effect.Effect<void>
    /**
     * Removes the pending consent, expired or not, and returns it if it has not expired at
     * `now`. Single use: of concurrent takes with one token, exactly one gets it.
     */
    readonly take: (tokenHash: SecretHash, now: Date) => Effect.Effect<Option.Option<PendingConsent>>
    /**
     * Deletes at most `limit` pending consents expired at `now` (approvals stay), passing over
     * those a request holds; returns how many.
     */
    readonly purge: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
