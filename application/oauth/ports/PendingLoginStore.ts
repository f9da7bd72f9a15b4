import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { SecretHash } from "../../../domain/Ids.js"
import type { PendingLogin } from "../../../domain/oauth/PendingLogin.js"

export class PendingLoginStore extends Context.Tag("latchkey/oauth/PendingLoginStore")<
  PendingLoginStore,
  {
    /** Parks an authorize request under a fresh state hash. */
    readonly put: (pending: PendingLogin) => Effect.Effect<void>
    /**
     * Removes the pending login, expired or not, and returns it if it has not expired at `now`.
     * Single use: of concurrent takes with one state, exactly one gets it.
     */
    readonly take: (stateHash: SecretHash, now: Date) => Effect.Effect<Option.Option<PendingLogin>>
    /**
     * Deletes at most `limit` pending logins expired at `now`, passing over those a request
     * holds; returns how many.
     */
    readonly purge: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
