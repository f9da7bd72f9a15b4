import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import type { IssuedCodes } from "./CreateRecoveryCodes.js"
import { FactorStore } from "./ports/FactorStore.js"
import * as RecoveryCodeSets from "./RecoveryCodeSets.js"

/**
 * POST /factors/recovery-codes/regenerate (auth-js `mfa.recoveryCodes.regenerate`): a new set
 * under the same factor id and name; the old codes stop working at once and the verification
 * lockout is cleared, in one store step. Refused when recovery codes are switched off
 * (`MFA_RECOVERY_CODES_ENROLL_ENABLED`, as auth-js documents), when the user has no set (404
 * `mfa_factor_not_found`: create one instead) and below aal2.
 */
export const regenerateRecoveryCodes = Telemetry.fn("RegenerateRecoveryCodes.regenerateRecoveryCodes")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      yield* RecoveryCodeSets.requireEnrolment(signedIn)
      const store = yield* FactorStore
      const userId = signedIn.user.id
      if (Option.isNone(yield* store.recoveryCodes(userId))) return yield* new AuthError.FactorNotFound()
      yield* RecoveryCodeSets.requireAal2(signedIn)
      const set = yield* RecoveryCodeSets.draw
      const now = new Date(yield* Clock.currentTimeMillis)
      const replaced = yield* store.replaceRecoveryCodes(userId, set.hashes, now)
      // Deleted since it was found.
      if (Option.isNone(replaced)) return yield* new AuthError.FactorNotFound()
      return { factor: replaced.value, codes: set.codes } satisfies IssuedCodes
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
