import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { SecretHash } from "../../../domain/Ids.js"
import type { AuthorizationCode } from "../../../domain/oauth/AuthorizationCode.js"

export interface Consumed {
  readonly code: AuthorizationCode
  /** True when an earlier presentation had already consumed it: a replay. */
  readonly wasConsumed: boolean
}

export class AuthorizationCodeStore extends Context.Tag("latchkey/oauth/AuthorizationCodeStore")<
  AuthorizationCodeStore,
  {
    readonly issue: (code: AuthorizationCode) => Effect.Effect<void>
    /**
     * Marks the code consumed and returns it, atomically: of any number of concurrent
     * presentations exactly one sees `wasConsumed: false`. Expired codes are consumed too
     * (`AuthorizationCode.check` judges expiry); a later presentation gets the code as first
     * consumed, `consumedAt` unchanged. None when no such code exists.
     */
    readonly consume: (hash: SecretHash, now: Date) => Effect.Effect<Option.Option<Consumed>>
    /**
     * Deletes at most `limit` of the codes `AuthorizationCode.isPurgeable` at `now`, passing over
     * codes a request holds; returns how many.
     */
    readonly purge: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
