import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { SecretHash } from "../../../domain/Ids.js"
import type { BrowserSession } from "../../../domain/oauth/BrowserSession.js"

/** Browser sessions at our callback, found by the hash of their cookie. */
export class SessionStore extends Context.Tag("latchkey/oauth/SessionStore")<
  SessionStore,
  {
    /** Stores a session under a fresh token hash. */
    readonly create: (session: BrowserSession) => Effect.Effect<void>
    /**
     * The session if it exists and is active at `now`. A read only: a session serves any
     * number of look-ups, and one that has expired stays stored until `purge`.
     */
    readonly find: (tokenHash: SecretHash, now: Date) => Effect.Effect<Option.Option<BrowserSession>>
    /**
     * Deletes at most `limit` sessions expired at `now`, passing over those a request holds;
     * returns how many.
     */
    readonly purge: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
