import { Context, type Effect, type Option } from "effect"
import type { SecretHash } from "../../../domain/Ids.js"
import type { BrowserSession } from "../../../domain/oauth/BrowserSession.js"

export class SessionStore extends Context.Tag("latchkey/oauth/SessionStore")<
  SessionStore,
  {
    readonly create: (session: BrowserSession) => Effect.Effect<void>
    /** The session if it exists and is active at `now`. */
    readonly find: (tokenHash: SecretHash, now: Date) => Effect.Effect<Option.Option<BrowserSession>>
    readonly purge: (now: Date) => Effect.Effect<number>
  }
>() {}
