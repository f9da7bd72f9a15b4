import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { recoveryCodesStatus } from "../../../application/auth/RecoveryCodesStatus.js"
import { regenerateRecoveryCodes } from "../../../application/auth/RegenerateRecoveryCodes.js"
import { verifyRecoveryCode } from "../../../application/auth/VerifyRecoveryCode.js"
import { atAal2, services, signedInAs } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { withCodes } from "./support/RecoveryCodes.js"
import { signedUp } from "./support/Scenarios.js"

const allOn = {
  totp: { enroll: true, verify: true },
  phone: { enroll: true, verify: true },
  webauthn: { enroll: true, verify: true }
}

describe("RegenerateRecoveryCodes (POST /factors/recovery-codes/regenerate), on memory adapters", () => {
  it.effect("a new set under the same id and name: the old codes dead, the new ones good", () =>
    Effect.gen(function* () {
      const { codes, set, signedIn } = yield* withCodes("Backup codes")
      yield* verifyRecoveryCode(signedIn, codes[0] ?? "")
      const renewed = yield* regenerateRecoveryCodes(atAal2(signedIn))
      expect([renewed.factor.id, renewed.factor.friendlyName]).toEqual([set.factor.id, "Backup codes"])
      const fresh = renewed.codes.map(Redacted.value)
      expect(fresh).toHaveLength(10)
      expect(fresh.filter((code) => codes.includes(code))).toEqual([])
      expect((yield* recoveryCodesStatus(signedIn)).status).toEqual({ total: 10, remaining: 10 })
      expect(yield* failureOf(verifyRecoveryCode(signedIn, codes[1] ?? ""))).toBe("mfa_verification_failed")
      expect(yield* failureOf(verifyRecoveryCode(signedIn, fresh[0] ?? ""))).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("clears the lockout", () =>
    Effect.gen(function* () {
      const { signedIn } = yield* withCodes()
      for (let i = 0; i < 5; i++) yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))
      const renewed = yield* regenerateRecoveryCodes(atAal2(signedIn))
      expect(
        yield* failureOf(verifyRecoveryCode(signedIn, Redacted.value(renewed.codes[0] ?? Redacted.make(""))))
      ).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses a token below aal2 and a user without a set", () =>
    Effect.gen(function* () {
      const { signedIn } = yield* withCodes()
      expect(yield* describedFailureOf(regenerateRecoveryCodes(signedIn))).toBe(
        "insufficient_aal: AAL2 session is required to manage recovery codes"
      )
      const without = yield* signedInAs(yield* signedUp())
      expect(yield* describedFailureOf(regenerateRecoveryCodes(atAal2(without)))).toBe(
        "mfa_factor_not_found: Factor not found"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("MFA_RECOVERY_CODES_ENROLL_ENABLED off: 422 mfa_recovery_codes_enroll_not_enabled", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      expect(yield* failureOf(regenerateRecoveryCodes(atAal2(signedIn)))).toBe(
        "mfa_recovery_codes_enroll_not_enabled"
      )
    }).pipe(
      Effect.provide(services({}, { switches: { ...allOn, recovery_code: { enroll: false, verify: true } } }))
    )
  )
})
