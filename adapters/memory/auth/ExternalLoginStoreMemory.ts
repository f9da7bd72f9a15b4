import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { ExternalLoginStore } from "../../../application/auth/ports/ExternalLoginStore.js"
import type { ExternalLogin } from "../../../domain/auth/ExternalLogin.js"
import * as Time from "../../../domain/Time.js"

/** Sign-ins on their way in one process's memory; a take is one atomic step. */
export const layer = Layer.effect(
  ExternalLoginStore,
  Effect.gen(function* () {
    const logins = yield* Ref.make<ReadonlyArray<ExternalLogin>>([])
    return {
      put: (login) => Ref.update(logins, (all) => [...all, login]),
      take: (stateHash, now) =>
        Ref.modify(logins, (all): [Option.Option<ExternalLogin>, ReadonlyArray<ExternalLogin>] => {
          const found = all.find((login) => login.stateHash === stateHash)
          if (found === undefined) return [Option.none(), all]
          const rest = all.filter((login) => login !== found)
          return [Time.isAtOrAfter(now, found.expiresAt) ? Option.none() : Option.some(found), rest]
        })
    }
  })
)
