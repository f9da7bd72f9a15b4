import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as RecoveryCodes from "../../domain/auth/RecoveryCodes.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { requireNotAnonymous } from "./FactorInput.js"
import * as IssueSession from "./IssueSession.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { SessionStore, type WithAccount } from "./ports/SessionStore.js"
import { Transactions } from "./ports/Transactions.js"
import * as RecoveryCodeSets from "./RecoveryCodeSets.js"

/** What the attempt's transaction came to; only a raise is a success. */
type Settled =
  | { readonly _tag: "Raised"; readonly raised: WithAccount }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Locked"; readonly until: Date }

/**
 * POST /factors/recovery-codes/verify (auth-js `mfa.recoveryCodes.verify`): one of the user's
 * unused codes, typed as the user likes (case, whitespace and `-` ignored), proves the second
 * factor. In one transaction: the attempt decided and recorded on the set (`RecoveryCodes.attempt`:
 * a matching code spent once however many present it at the same moment; a wrong, used or
 * malformed one counted, the fifth in a row locking verification for 15 minutes); on a match the
 * session raised to aal2 with `mfa/recovery_code` and a new refresh token, the user's other aal1
 * sessions ended, as a factor's verify does, and the "recovery code used" notification queued
 * (`MAILER_NOTIFICATIONS_MFA_RECOVERY_CODE_USED_ENABLED`). A refused attempt commits, so that it
 * counts. Wrong, used, or no set at all: 422 `mfa_verification_failed`; locked: 429
 * `mfa_recovery_codes_locked`, nothing checked.
 */
export const verifyRecoveryCode = Telemetry.fn("VerifyRecoveryCode.verifyRecoveryCode")(
  (signedIn: SignedIn, code: string) =>
    Effect.gen(function* () {
      yield* requireNotAnonymous(signedIn)
      const mfa = yield* MfaSettings
      if (!mfa.switches.recovery_code.verify) {
        return yield* new AuthError.FactorVerifyDisabled({ factorType: "recovery_code", at: "verify" })
      }
      if (code.trim() === "") return yield* new AuthError.FactorCodeMissing()
      const session = signedIn.session
      if (Option.isNone(session)) return yield* new AuthError.SessionFromJwtNotFound()
      const secrets = yield* Secrets
      const canonical = RecoveryCodes.normalize(code)
      // Input that cannot be a code is never looked up, but counts as a failure all the same.
      const codeHash = RecoveryCodes.isWellFormed(canonical)
        ? Option.some(yield* secrets.hash(Redacted.make(canonical)))
        : Option.none()
      const refreshToken = yield* secrets.token("refresh")
      const child = yield* secrets.hash(refreshToken)
      const now = new Date(yield* Clock.currentTimeMillis)
      const userId = signedIn.user.id
      const store = yield* FactorStore
      const sessions = yield* SessionStore
      const settled = yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            const attempt = yield* store.attemptRecoveryCode(
              userId,
              codeHash,
              RecoveryCodes.lockoutPolicy,
              now
            )
            if (Option.isNone(attempt)) return { _tag: "Refused" } satisfies Settled
            const outcome = attempt.value.outcome
            if (outcome._tag === "Locked") return { _tag: "Locked", until: outcome.until } satisfies Settled
            if (outcome._tag === "Rejected") return { _tag: "Refused" } satisfies Settled
            const raised = yield* sessions.raise({
              sessionId: session.value.id,
              factorId: attempt.value.factor.id,
              factorType: "recovery_code",
              child,
              now
            })
            // Failing here undoes the spent code with the rest of the transaction.
            if (Option.isNone(raised)) return yield* new AuthError.SessionFromJwtNotFound()
            const left = yield* store.recoveryCodes(userId)
            yield* RecoveryCodeSets.notify(signedIn.user, "mfa_recovery_code_used_notification", now, {
              RemainingCodes: Option.match(left, { onNone: () => 0, onSome: (set) => set.status.remaining })
            })
            return { _tag: "Raised", raised: raised.value } satisfies Settled
          })
        )
      )
      if (settled._tag === "Locked") {
        return yield* new AuthError.RecoveryCodesLocked({
          secondsLeft: (settled.until.getTime() - now.getTime()) / 1000
        })
      }
      if (settled._tag === "Refused") {
        return yield* new AuthError.FactorVerificationFailed({ factorType: "recovery_code" })
      }
      return yield* IssueSession.grantOfRaised(settled.raised, refreshToken, now)
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
