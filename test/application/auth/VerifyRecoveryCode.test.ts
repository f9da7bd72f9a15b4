import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { verifyRecoveryCode } from "../../../application/auth/VerifyRecoveryCode.js"
import { enrolled, services, signedInAs, verified } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { anonymousCaller, typed, withCodes } from "./support/RecoveryCodes.js"
import { client, mailsTo, password, signedUp, standing } from "./support/Scenarios.js"

const remaining = (userId: Parameters<FactorStore["Type"]["recoveryCodes"]>[0]) =>
  Effect.map(
    Effect.flatMap(FactorStore, (store) => store.recoveryCodes(userId)),
    Option.map((set) => set.status.remaining)
  )

const allOn = {
  totp: { enroll: true, verify: true },
  phone: { enroll: true, verify: true },
  webauthn: { enroll: true, verify: true }
}

describe("VerifyRecoveryCode (POST /factors/recovery-codes/verify), on memory adapters", () => {
  it.effect("a code as typed raises the session: aal2, mfa/recovery_code first, a new pair", () =>
    Effect.gen(function* () {
      const { codes, grant, signedIn } = yield* withCodes()
      const code = codes[3] ?? ""
      const raised = yield* verifyRecoveryCode(signedIn, typed(code))
      expect(raised.session.id).toBe(grant.session.id)
      const claims = (yield* signedInAs(raised)).claims
      expect(claims.aal).toBe("aal2")
      expect(claims.amr.map((entry) => entry.method)).toEqual(["mfa/recovery_code", "password"])
      expect(yield* remaining(signedIn.user.id)).toEqual(Option.some(9))
      // The refresh token held before is a reuse; the new one keeps aal2.
      const again = yield* refreshSession(Redacted.value(raised.refreshToken))
      expect((yield* signedInAs(again)).claims.aal).toBe("aal2")
    }).pipe(Effect.provide(services()))
  )

  it.effect("a used code, a wrong one, a malformed one and no set at all: mfa_verification_failed", () =>
    Effect.gen(function* () {
      const { codes, signedIn } = yield* withCodes()
      const code = codes[0] ?? ""
      expect(yield* failureOf(verifyRecoveryCode(signedIn, code))).toBe("ok")
      expect(yield* describedFailureOf(verifyRecoveryCode(signedIn, code))).toBe(
        "mfa_verification_failed: Invalid recovery code entered"
      )
      expect(yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))).toBe(
        "mfa_verification_failed"
      )
      expect(yield* failureOf(verifyRecoveryCode(signedIn, "not a code"))).toBe("mfa_verification_failed")
      expect(yield* describedFailureOf(verifyRecoveryCode(signedIn, "  "))).toBe(
        "validation_failed: Code needs to be non-empty"
      )
      // Another user's code is no code of this user.
      const stranger = yield* withCodes()
      expect(yield* failureOf(verifyRecoveryCode(stranger.signedIn, codes[1] ?? ""))).toBe(
        "mfa_verification_failed"
      )
      const without = yield* signedInAs(yield* signedUp())
      expect(yield* failureOf(verifyRecoveryCode(without, codes[1] ?? ""))).toBe("mfa_verification_failed")
      // The three failures counted; the codes are still there.
      expect(yield* remaining(signedIn.user.id)).toEqual(Option.some(9))
    }).pipe(Effect.provide(services()))
  )

  it.effect("five failures in a row lock verification for 15 minutes, right codes included", () =>
    Effect.gen(function* () {
      const { codes, signedIn } = yield* withCodes()
      for (let i = 0; i < 5; i++) {
        expect(yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))).toBe(
          "mfa_verification_failed"
        )
      }
      expect(yield* describedFailureOf(verifyRecoveryCode(signedIn, codes[0] ?? ""))).toBe(
        "mfa_recovery_codes_locked: Too many invalid recovery codes entered, try again after 900 seconds."
      )
      yield* TestClock.adjust(Duration.minutes(14))
      expect(yield* describedFailureOf(verifyRecoveryCode(signedIn, codes[0] ?? ""))).toBe(
        "mfa_recovery_codes_locked: Too many invalid recovery codes entered, try again after 60 seconds."
      )
      // Nothing was spent while locked.
      expect(yield* remaining(signedIn.user.id)).toEqual(Option.some(10))
      yield* TestClock.adjust(Duration.minutes(1))
      expect(yield* failureOf(verifyRecoveryCode(signedIn, codes[0] ?? ""))).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("a success clears the count of failures", () =>
    Effect.gen(function* () {
      const { codes, signedIn } = yield* withCodes()
      for (let i = 0; i < 4; i++) yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))
      expect(yield* failureOf(verifyRecoveryCode(signedIn, codes[0] ?? ""))).toBe("ok")
      for (let i = 0; i < 4; i++) {
        expect(yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))).toBe(
          "mfa_verification_failed"
        )
      }
      expect(yield* failureOf(verifyRecoveryCode(signedIn, codes[1] ?? ""))).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("ends the user's other aal1 sessions and tells the address when the mail is on", () =>
    Effect.gen(function* () {
      const { codes, email, signedIn } = yield* withCodes()
      const other = (yield* signInWithPassword({ email, phone: "", password, client })).grant
      yield* verifyRecoveryCode(signedIn, codes[0] ?? "")
      expect(yield* standing(other)).toBe("session_not_found/refresh_token_not_found")
      const mails = (yield* mailsTo(email)).filter(
        (mail) => mail.kind === "mfa_recovery_code_used_notification"
      )
      expect(mails.map((mail) => [mail.variables.FactorType, mail.variables.RemainingCodes])).toEqual([
        ["recovery_code", 9]
      ])
    }).pipe(Effect.provide(services({ notifications: new Set(["mfa_recovery_code_used_notification"]) })))
  )

  it.effect("no mail when the notification is off, none for a failure", () =>
    Effect.gen(function* () {
      const { codes, email, signedIn } = yield* withCodes()
      yield* failureOf(verifyRecoveryCode(signedIn, "2222222222222222"))
      yield* verifyRecoveryCode(signedIn, codes[0] ?? "")
      expect(yield* mailsTo(email)).toEqual([])
    }).pipe(Effect.provide(services()))
  )

  it.effect("50 concurrent verifies of one code: exactly one raises the session", () =>
    Effect.gen(function* () {
      const { codes, grant, signedIn } = yield* withCodes()
      const code = codes[0] ?? ""
      const results = yield* Effect.all(
        Array.from({ length: 50 }, () => failureOf(verifyRecoveryCode(signedIn, code))),
        { concurrency: "unbounded" }
      )
      expect(results.filter((result) => result === "ok")).toHaveLength(1)
      expect(
        results.every((result) =>
          ["ok", "mfa_verification_failed", "mfa_recovery_codes_locked"].includes(result)
        )
      ).toBe(true)
      const session = yield* Effect.flatMap(SessionStore, (sessions) => sessions.findById(grant.session.id))
      expect(Option.map(session, (found) => [found.aal, found.generation])).toEqual(Option.some(["aal2", 2]))
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses an anonymous user", () =>
    Effect.gen(function* () {
      const caller = yield* anonymousCaller
      expect(yield* failureOf(verifyRecoveryCode(caller, "2222222222222222"))).toBe("no_authorization")
    }).pipe(Effect.provide(services({ anonymousEnabled: true })))
  )

  it.effect("MFA_RECOVERY_CODES_VERIFY_ENABLED off: 422 mfa_recovery_codes_verify_not_enabled", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const totp = yield* enrolled(signedIn.user.id, "totp")
      yield* verified(signedIn, totp.factor.id)
      expect(yield* describedFailureOf(verifyRecoveryCode(signedIn, "2222222222222222"))).toBe(
        "mfa_recovery_codes_verify_not_enabled: MFA verification is disabled for Recovery Codes"
      )
    }).pipe(
      Effect.provide(services({}, { switches: { ...allOn, recovery_code: { enroll: true, verify: false } } }))
    )
  )
})
