import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ClientId, SecretHash } from "../../../domain/Ids.js"

/**
 * The ids (`jti`) of the client assertions already accepted, each kept until the assertion
 * could no longer pass anyway, so that a captured assertion cannot be presented again (RFC 7523
 * §3 item 7). Shared by every instance: a replay to another instance is refused as well.
 */
export class UsedAssertions extends Context.Tag("latchkey/oauth/UsedAssertions")<
  UsedAssertions,
  {
    /**
     * Records that `clientId` used the assertion whose id hashes to `jtiHash`, until `until`.
     * True the first time; false when it was recorded already (a replay). Of concurrent calls
     * with one id, exactly one gets true.
     */
    readonly record: (clientId: ClientId, jtiHash: SecretHash, until: Date) => Effect.Effect<boolean>
    /** Forgets at most `limit` ids kept until `now` or earlier; how many went. */
    readonly purge: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
