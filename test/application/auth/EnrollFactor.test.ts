import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as DatabaseEncryption from "../../../adapters/crypto/auth/DatabaseEncryption.js"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { enrollFactor } from "../../../application/auth/EnrollFactor.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import {
  atAal2,
  atRestKeys,
  request,
  sealingWorld,
  signedInUser,
  totp,
  verified,
  world
} from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { client } from "./support/Scenarios.js"

describe("EnrollFactor (POST /factors), on memory adapters", () => {
  it.effect("enrols TOTP: a 20-byte base32 secret in an otpauth URI naming the issuer and the address", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser("ada@example.com")
      const enrolled = yield* enrollFactor(
        signedIn,
        request("totp", { friendlyName: "phone app", issuer: "Acme Co" })
      )
      if (enrolled._tag !== "Totp") return yield* Effect.dieMessage("a TOTP enrolment")
      const secret = Redacted.value(enrolled.secret)
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      expect(Redacted.value(enrolled.uri)).toBe(
        `otpauth://totp/Acme%20Co:ada@example.com?algorithm=SHA1&digits=6&issuer=Acme+Co&period=30&secret=${secret}`
      )
      expect(enrolled.factor.status).toBe("unverified")
      expect(enrolled.factor.friendlyName).toBe("phone app")
      const listed = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
      expect(listed.map((factor) => factor.id)).toEqual([enrolled.factor.id])
      const stored = yield* Effect.flatMap(FactorStore, (store) =>
        store.find(signedIn.user.id, enrolled.factor.id)
      )
      expect(Option.flatMap(stored, (found) => found.secret)).toEqual(Option.some(secret))
    }).pipe(Effect.provide(world()))
  )

  it.effect("seals a TOTP secret at rest under SECURITY_DB_ENCRYPTION's key, bound to the factor", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser("cy@example.com")
      const enrolled = yield* enrollFactor(signedIn, request("totp"))
      if (enrolled._tag !== "Totp") return yield* Effect.dieMessage("a TOTP enrolment")
      const stored = yield* Effect.flatMap(FactorStore, (store) =>
        store.find(signedIn.user.id, enrolled.factor.id)
      )
      const kept = Option.getOrThrow(Option.flatMap(stored, (found) => found.secret))
      // Supabase Auth's sealed form, which neither shows the secret nor opens for another row.
      expect(JSON.parse(kept)).toMatchObject({ key_id: "key-1", alg: "aes-gcm-hkdf" })
      expect(kept).not.toContain(Redacted.value(enrolled.secret))
      expect(yield* DatabaseEncryption.open(atRestKeys, enrolled.factor.id, kept)).toBe(
        Redacted.value(enrolled.secret)
      )
      expect(yield* failureOf(DatabaseEncryption.open(atRestKeys, "another-factor", kept))).toBe(
        "SecretUnreadable"
      )
    }).pipe(Effect.provide(sealingWorld()))
  )

  it.effect("takes SITE_URL's host as the issuer when none is given", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser("bo@example.com")
      const enrolled = yield* enrollFactor(signedIn, request("totp"))
      if (enrolled._tag !== "Totp") return yield* Effect.dieMessage("a TOTP enrolment")
      expect(Redacted.value(enrolled.uri)).toMatch(
        /^otpauth:\/\/totp\/localhost:3000:bo@example\.com\?.*&issuer=localhost%3A3000&/
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect("refuses an issuer too long for a QR code before anything is stored", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser("cy@example.com")
      // The issuer is written twice: in the label and as a parameter.
      const longest = "x".repeat(550)
      const fits = yield* enrollFactor(signedIn, request("totp", { friendlyName: "fits", issuer: longest }))
      if (fits._tag !== "Totp") return yield* Effect.dieMessage("a TOTP enrolment")
      expect(Redacted.value(fits.uri).length).toBeLessThanOrEqual(1_273)
      expect(
        yield* describedFailureOf(
          enrollFactor(signedIn, request("totp", { friendlyName: "too long", issuer: "x".repeat(650) }))
        )
      ).toBe("validation_failed: issuer is too long for the factor's QR code")
      const listed = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
      expect(listed.map((factor) => factor.friendlyName)).toEqual(["fits"])
    }).pipe(Effect.provide(world()))
  )

  it.effect("enrols a phone factor with its number read as E.164, answering the number as sent", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const enrolled = yield* enrollFactor(signedIn, request("phone", { phone: "+1 555 555 0100" }))
      expect(enrolled._tag === "Phone" ? enrolled.phone : "").toBe("+1 555 555 0100")
      expect(enrolled.factor.phone).toEqual(Option.some("15555550100"))
      expect(yield* describedFailureOf(enrollFactor(signedIn, request("phone", { friendlyName: "b" })))).toBe(
        "validation_failed: Phone number required to enroll Phone factor"
      )
      expect(
        yield* failureOf(enrollFactor(signedIn, request("phone", { phone: "555-0100", friendlyName: "c" })))
      ).toBe("validation_failed")
      // An unverified factor of the same number is replaced; a verified one refuses.
      const again = yield* enrollFactor(
        signedIn,
        request("phone", { phone: "15555550100", friendlyName: "d" })
      )
      const listed = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
      expect(listed.map((factor) => factor.id)).toEqual([again.factor.id])
      yield* verified(signedIn, again.factor.id)
      expect(
        yield* failureOf(
          enrollFactor(atAal2(signedIn), request("phone", { phone: "15555550100", friendlyName: "e" }))
        )
      ).toBe("mfa_verified_factor_exists")
    }).pipe(Effect.provide(world()))
  )

  it.effect("enrols a WebAuthn factor, whose credential comes at its first challenge", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const enrolled = yield* enrollFactor(signedIn, request("webauthn", { friendlyName: "key" }))
      expect(enrolled._tag).toBe("WebAuthn")
      expect(enrolled.factor.factorType).toBe("webauthn")
    }).pipe(Effect.provide(world()))
  )

  it.effect("refuses an unknown type, a type switched off, and an anonymous user", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      expect(yield* describedFailureOf(enrollFactor(signedIn, request("sms")))).toBe(
        "validation_failed: factor_type needs to be totp, phone, or webauthn"
      )
      expect(yield* describedFailureOf(enrollFactor(signedIn, request("recovery_code")))).toBe(
        "validation_failed: factor_type needs to be totp, phone, or webauthn"
      )
      expect(
        yield* describedFailureOf(enrollFactor(signedIn, request("phone", { phone: "15555550100" })))
      ).toBe("mfa_phone_enroll_not_enabled: MFA enroll is disabled for Phone")
      const anonymous = yield* signInAnonymously({}, client)
      const caller = yield* Authenticate.user(Redacted.value(anonymous.access.token))
      expect(yield* describedFailureOf(enrollFactor(caller, request("totp")))).toBe(
        "no_authorization: Anonymous user not allowed to perform these actions"
      )
    }).pipe(
      Effect.provide(
        world({
          switches: {
            totp: { enroll: true, verify: true },
            phone: { enroll: false, verify: true },
            webauthn: { enroll: true, verify: true },
            recovery_code: { enroll: true, verify: true }
          }
        })
      )
    )
  )

  it.effect("keeps friendly names unique per user, the blank name included, as Supabase Auth does", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      yield* totp(signedIn, "")
      expect(yield* describedFailureOf(enrollFactor(signedIn, request("totp")))).toBe(
        'mfa_factor_name_conflict: A factor with the friendly name "" for this user already exists'
      )
      yield* totp(signedIn, "work")
      expect(yield* failureOf(totp(signedIn, "work"))).toBe("mfa_factor_name_conflict")
      // Another user may use the name.
      expect(yield* failureOf(totp(yield* signedInUser(), "work"))).toBe("ok")
    }).pipe(Effect.provide(world()))
  )

  it.effect("counts factors of any status against MFA_MAX_ENROLLED_FACTORS", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      yield* totp(signedIn, "one")
      yield* totp(signedIn, "two")
      expect(yield* describedFailureOf(totp(signedIn, "three"))).toBe(
        "too_many_enrolled_mfa_factors: Maximum number of verified factors reached, unenroll to continue"
      )
    }).pipe(Effect.provide(world({ limits: { maxEnrolled: 2, maxVerified: 10 } })))
  )

  it.effect("needs aal2 once the user has a verified factor", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      yield* verified(signedIn, yield* totp(signedIn, "first"))
      expect(yield* describedFailureOf(totp(signedIn, "second"))).toBe(
        "insufficient_aal: AAL2 required to enroll a new factor"
      )
      expect(yield* failureOf(totp(atAal2(signedIn), "second"))).toBe("ok")
      // The session's level decides, not the token's: an aal2 token of a session an unenrol
      // lowered since is refused, as Supabase Auth reads the session.
      const lowered = { ...atAal2(signedIn), session: signedIn.session }
      expect(yield* describedFailureOf(totp(lowered, "third"))).toBe(
        "insufficient_aal: AAL2 required to enroll a new factor"
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect("deletes unverified factors nobody challenged once MFA_FACTOR_EXPIRY_DURATION has passed", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      yield* totp(signedIn, "old")
      yield* TestClock.adjust(Duration.seconds(299))
      expect(yield* failureOf(totp(signedIn, "old"))).toBe("mfa_factor_name_conflict")
      yield* TestClock.adjust(Duration.seconds(2))
      expect(yield* failureOf(totp(signedIn, "old"))).toBe("ok")
      const listed = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
      expect(listed.length).toBe(1)
    }).pipe(Effect.provide(world()))
  )
})
