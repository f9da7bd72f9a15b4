import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRecoveryCodes } from "../../../application/auth/CreateRecoveryCodes.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import { atAal2, enrolled, services, signedInAs, verified } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { anonymousCaller, withCodes } from "./support/RecoveryCodes.js"
import { mailsTo, signedUp } from "./support/Scenarios.js"

describe("CreateRecoveryCodes (POST /factors/recovery-codes), on memory adapters", () => {
  it.effect("gives ten distinct codes of the alphabet once, keeps digests, makes a verified factor", () =>
    Effect.gen(function* () {
      const { codes, set, signedIn } = yield* withCodes()
      expect(codes).toHaveLength(10)
      expect(new Set(codes).size).toBe(10)
      for (const code of codes) expect(code).toMatch(/^[2-9abcdefghjkmnpqrstvwxyz]{16}$/)
      expect([set.factor.factorType, set.factor.status, set.factor.friendlyName]).toEqual([
        "recovery_code",
        "verified",
        RecoveryCodes.defaultFriendlyName
      ])
      const store = yield* FactorStore
      const listed = yield* store.list(signedIn.user.id)
      expect(listed.map((factor) => factor.factorType)).toEqual(["totp", "recovery_code"])
      const status = yield* store.recoveryCodes(signedIn.user.id)
      expect(status._tag === "Some" ? status.value.status : undefined).toEqual({ total: 10, remaining: 10 })
    }).pipe(Effect.provide(services()))
  )

  it.effect("takes the name asked for", () =>
    Effect.gen(function* () {
      const { set } = yield* withCodes("Backup codes")
      expect(set.factor.friendlyName).toBe("Backup codes")
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses a sole factor, a token below aal2, a second set, a taken name", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      expect(yield* describedFailureOf(createRecoveryCodes(atAal2(signedIn), ""))).toBe(
        "mfa_recovery_codes_sole_factor: Recovery codes require another verified factor"
      )
      // An unverified factor is not enough.
      const totp = yield* enrolled(signedIn.user.id, "totp", { friendlyName: "Phone app" })
      expect(yield* failureOf(createRecoveryCodes(atAal2(signedIn), ""))).toBe(
        "mfa_recovery_codes_sole_factor"
      )
      yield* verified(signedIn, totp.factor.id)
      expect(yield* describedFailureOf(createRecoveryCodes(signedIn, ""))).toBe(
        "insufficient_aal: AAL2 session is required to manage recovery codes"
      )
      expect(yield* describedFailureOf(createRecoveryCodes(atAal2(signedIn), "Phone app"))).toBe(
        'mfa_factor_name_conflict: A factor with the friendly name "Phone app" for this user already exists'
      )
      expect(yield* failureOf(createRecoveryCodes(atAal2(signedIn), ""))).toBe("ok")
      expect(yield* failureOf(createRecoveryCodes(atAal2(signedIn), "Another set"))).toBe(
        "mfa_verified_factor_exists"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses an anonymous user", () =>
    Effect.gen(function* () {
      const caller = yield* anonymousCaller
      expect(yield* failureOf(createRecoveryCodes(atAal2(caller), ""))).toBe("no_authorization")
    }).pipe(Effect.provide(services({ anonymousEnabled: true })))
  )

  it.effect("MFA_RECOVERY_CODES_ENROLL_ENABLED off: 422 mfa_recovery_codes_enroll_not_enabled", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const totp = yield* enrolled(signedIn.user.id, "totp")
      yield* verified(signedIn, totp.factor.id)
      expect(yield* describedFailureOf(createRecoveryCodes(atAal2(signedIn), ""))).toBe(
        "mfa_recovery_codes_enroll_not_enabled: MFA enroll is disabled for Recovery Codes"
      )
    }).pipe(
      Effect.provide(
        services(
          {},
          {
            switches: {
              totp: { enroll: true, verify: true },
              phone: { enroll: true, verify: true },
              webauthn: { enroll: true, verify: true },
              recovery_code: { enroll: false, verify: true }
            }
          }
        )
      )
    )
  )

  it.effect("tells the user's address with MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED", () =>
    Effect.gen(function* () {
      const { email } = yield* withCodes()
      const mails = (yield* mailsTo(email)).filter((mail) => mail.kind === "mfa_factor_enrolled_notification")
      expect(mails.map((mail) => mail.variables.FactorType)).toEqual(["recovery_code"])
    }).pipe(Effect.provide(services({ notifications: new Set(["mfa_factor_enrolled_notification"]) })))
  )

  it.effect("no mail when the notification is off", () =>
    Effect.gen(function* () {
      const { email } = yield* withCodes()
      expect(yield* mailsTo(email)).toEqual([])
    }).pipe(Effect.provide(services()))
  )
})
