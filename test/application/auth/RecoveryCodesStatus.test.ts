import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { recoveryCodesStatus } from "../../../application/auth/RecoveryCodesStatus.js"
import { verifyRecoveryCode } from "../../../application/auth/VerifyRecoveryCode.js"
import { services, signedInAs } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { anonymousCaller, withCodes } from "./support/RecoveryCodes.js"
import { signedUp } from "./support/Scenarios.js"

describe("RecoveryCodesStatus (GET /factors/recovery-codes), on memory adapters", () => {
  it.effect("counts the set's codes and the unused ones, at aal1 too", () =>
    Effect.gen(function* () {
      const { codes, set, signedIn } = yield* withCodes()
      const before = yield* recoveryCodesStatus(signedIn)
      expect([before.factor.id, before.status]).toEqual([set.factor.id, { total: 10, remaining: 10 }])
      yield* verifyRecoveryCode(signedIn, codes[0] ?? "")
      yield* verifyRecoveryCode(signedIn, codes[9] ?? "")
      expect((yield* recoveryCodesStatus(signedIn)).status).toEqual({ total: 10, remaining: 8 })
    }).pipe(Effect.provide(services()))
  )

  it.effect("no set: 404 mfa_factor_not_found; an anonymous user: 403", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      expect(yield* describedFailureOf(recoveryCodesStatus(signedIn))).toBe(
        "mfa_factor_not_found: Factor not found"
      )
      expect(yield* failureOf(recoveryCodesStatus(yield* anonymousCaller))).toBe("no_authorization")
    }).pipe(Effect.provide(services({ anonymousEnabled: true })))
  )
})
