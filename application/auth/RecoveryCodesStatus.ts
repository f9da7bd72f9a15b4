import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { requireNotAnonymous } from "./FactorInput.js"
import { FactorStore } from "./ports/FactorStore.js"

/**
 * GET /factors/recovery-codes (auth-js `mfa.recoveryCodes.getStatus`): the user's set, how many
 * codes it has and how many are unused — never the codes. At any level: a user at aal1 deciding
 * whether to offer recovery needs it. No set: 404 `mfa_factor_not_found`.
 */
export const recoveryCodesStatus = Telemetry.fn("RecoveryCodesStatus.recoveryCodesStatus")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      yield* requireNotAnonymous(signedIn)
      const found = yield* Effect.flatMap(FactorStore, (store) => store.recoveryCodes(signedIn.user.id))
      if (Option.isNone(found)) return yield* new AuthError.FactorNotFound()
      return found.value
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
