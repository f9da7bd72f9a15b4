import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { requireNotAnonymous } from "./FactorInput.js"
import { FactorStore } from "./ports/FactorStore.js"
import { SessionStore } from "./ports/SessionStore.js"
import { Transactions } from "./ports/Transactions.js"
import * as RecoveryCodeSets from "./RecoveryCodeSets.js"

/**
 * DELETE /factors/recovery-codes (auth-js `mfa.recoveryCodes.unenroll`): the user's set and its
 * codes removed, from an aal2 token; no set: 404 `mfa_factor_not_found`. As at an unenrolment,
 * the sessions a recovery code raised go back to aal1 (`DowngradeSessionsToAAL1`) in the
 * deletion's transaction, and the "factor unenrolled" notification goes out with
 * `MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED`.
 */
export const deleteRecoveryCodes = Telemetry.fn("DeleteRecoveryCodes.deleteRecoveryCodes")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      yield* requireNotAnonymous(signedIn)
      const store = yield* FactorStore
      const userId = signedIn.user.id
      const found = yield* store.recoveryCodes(userId)
      if (Option.isNone(found)) return yield* new AuthError.FactorNotFound()
      yield* RecoveryCodeSets.requireAal2(signedIn)
      const factorId = found.value.factor.id
      const now = new Date(yield* Clock.currentTimeMillis)
      return yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            const removed = yield* store.remove(userId, factorId)
            if (Option.isNone(removed)) return yield* new AuthError.FactorNotFound()
            yield* Effect.flatMap(SessionStore, (sessions) =>
              sessions.lowerRaisedBy({ userId, factorId, factorType: "recovery_code", now })
            )
            yield* RecoveryCodeSets.notify(signedIn.user, "mfa_factor_unenrolled_notification", now)
            return removed.value
          })
        )
      )
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
