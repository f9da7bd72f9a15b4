import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { deleteRecoveryCodes } from "../../../application/auth/DeleteRecoveryCodes.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { verifyRecoveryCode } from "../../../application/auth/VerifyRecoveryCode.js"
import { atAal2, services, sessionOf, signedInAs } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { withCodes } from "./support/RecoveryCodes.js"
import { mailsTo, signedUp } from "./support/Scenarios.js"

describe("DeleteRecoveryCodes (DELETE /factors/recovery-codes), on memory adapters", () => {
  it.effect("removes the set and lowers the sessions a code raised; the other factor stays", () =>
    Effect.gen(function* () {
      const { codes, set, signedIn, totp } = yield* withCodes()
      const raised = yield* signedInAs(yield* verifyRecoveryCode(signedIn, codes[0] ?? ""))
      expect((yield* sessionOf(raised)).aal).toBe("aal2")
      const removed = yield* deleteRecoveryCodes(raised)
      expect(removed.id).toBe(set.factor.id)
      const left = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
      expect(left.map((factor) => factor.id)).toEqual([totp.id])
      const session = yield* sessionOf(raised)
      expect([session.aal, session.amr.map((entry) => entry.method)]).toEqual(["aal1", ["password"]])
      expect(yield* failureOf(verifyRecoveryCode(signedIn, codes[1] ?? ""))).toBe("mfa_verification_failed")
      expect(yield* describedFailureOf(deleteRecoveryCodes(raised))).toBe(
        "mfa_factor_not_found: Factor not found"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses a token below aal2 and a user without a set", () =>
    Effect.gen(function* () {
      const { signedIn } = yield* withCodes()
      expect(yield* describedFailureOf(deleteRecoveryCodes(signedIn))).toBe(
        "insufficient_aal: AAL2 session is required to manage recovery codes"
      )
      const without = yield* signedInAs(yield* signedUp())
      expect(yield* failureOf(deleteRecoveryCodes(atAal2(without)))).toBe("mfa_factor_not_found")
    }).pipe(Effect.provide(services()))
  )

  it.effect("tells the user's address with MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED", () =>
    Effect.gen(function* () {
      const { email, signedIn } = yield* withCodes()
      yield* deleteRecoveryCodes(atAal2(signedIn))
      const mails = (yield* mailsTo(email)).filter(
        (mail) => mail.kind === "mfa_factor_unenrolled_notification"
      )
      expect(mails.map((mail) => mail.variables.FactorType)).toEqual(["recovery_code"])
    }).pipe(Effect.provide(services({ notifications: new Set(["mfa_factor_unenrolled_notification"]) })))
  )
})
