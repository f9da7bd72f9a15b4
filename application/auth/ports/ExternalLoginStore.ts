import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ExternalLogin } from "../../../domain/auth/ExternalLogin.js"
import type { SecretHash } from "../../../domain/Ids.js"

/**
 * Sign-ins at external providers on their way, in the database so that the callback may reach
 * any instance. Taking one removes it: a state works once.
 */
export class ExternalLoginStore extends Context.Tag("latchkey/auth/ExternalLoginStore")<
  ExternalLoginStore,
  {
    readonly put: (login: ExternalLogin) => Effect.Effect<void>
    /**
     * Removes the login with this state digest and returns it unless it expired by `now`. Of
     * concurrent takes of one state, exactly one gets it.
     */
    readonly take: (stateHash: SecretHash, now: Date) => Effect.Effect<Option.Option<ExternalLogin>>
  }
>() {}
