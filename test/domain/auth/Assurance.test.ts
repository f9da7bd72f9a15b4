import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { AmrEntry } from "../../../domain/auth/AccessTokenClaims.js"
import * as Assurance from "../../../domain/auth/Assurance.js"
import { FactorId } from "../../../domain/auth/Factor.js"
import { authPolicy } from "../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../domain/auth/Session.js"
import { UserId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const seconds = (date: Date) => Math.floor(date.getTime() / 1000)
const factorId = FactorId.make("00000000-0000-4000-8000-00000000000f")

const signedIn = Session.start(
  {
    id: Session.SessionId.make("00000000-0000-4000-8000-000000000001"),
    userId: UserId.make("00000000-0000-4000-8000-000000000002"),
    aal: "aal1",
    amr: [new AmrEntry({ method: "password", timestamp: seconds(t0) })],
    factorId: Option.none(),
    userAgent: Option.none(),
    ip: Option.none(),
    tag: Option.none()
  },
  t0
)

describe("Assurance levels from methods", () => {
  it("second-factor methods are Supabase Auth's names, and only they make aal2", () => {
    expect(Assurance.methodOf).toEqual({
      totp: "totp",
      phone: "mfa/phone",
      webauthn: "mfa/webauthn",
      recovery_code: "mfa/recovery_code"
    })
    for (const method of [
      "password",
      "otp",
      "oauth",
      "magiclink",
      "passkey",
      "anonymous",
      "sso/saml",
      "mfa/totp"
    ]) {
      expect(Assurance.levelOf([new AmrEntry({ method, timestamp: 1 })])).toBe("aal1")
    }
    for (const method of ["totp", "mfa/phone", "mfa/webauthn", "mfa/recovery_code"]) {
      expect(
        Assurance.levelOf([
          new AmrEntry({ method: "password", timestamp: 1 }),
          new AmrEntry({ method, timestamp: 2 })
        ])
      ).toBe("aal2")
    }
    expect(Assurance.levelOf([])).toBe("aal1")
  })

  it("records one entry per method, a repeat moving its time, most recent first", () => {
    const amr = [new AmrEntry({ method: "password", timestamp: 100 })]
    const once = Assurance.recordMethod(amr, "totp", new Date(200_000))
    expect(once).toEqual([
      new AmrEntry({ method: "totp", timestamp: 200 }),
      new AmrEntry({ method: "password", timestamp: 100 })
    ])
    const again = Assurance.recordMethod(once, "totp", new Date(300_999))
    expect(again).toEqual([
      new AmrEntry({ method: "totp", timestamp: 300 }),
      new AmrEntry({ method: "password", timestamp: 100 })
    ])
    // An entry carrying a provider keeps it.
    const sso = [new AmrEntry({ method: "sso/saml", timestamp: 50, provider: "acme" })]
    expect(Assurance.recordMethod(sso, "mfa/phone", new Date(60_000))[1]).toEqual(sso[0])
  })
})

describe("Assurance after a verify", () => {
  const at = Time.plus(t0, "2 minutes")
  const raised = Assurance.raise(signedIn, factorId, "totp", at)

  it("raises the session to aal2 with the factor, its method first in amr", () => {
    expect(raised.aal).toBe("aal2")
    expect(raised.factorId).toEqual(Option.some(factorId))
    expect(raised.amr).toEqual([
      new AmrEntry({ method: "totp", timestamp: seconds(at) }),
      new AmrEntry({ method: "password", timestamp: seconds(t0) })
    ])
    expect([raised.refreshedAt, raised.updatedAt, raised.revokedAt]).toEqual([
      Option.some(at),
      at,
      Option.none()
    ])
  })

  it("moves the live refresh token two generations on, so the pre-verify token is never reissued", () => {
    expect(raised.generation).toBe(signedIn.generation + 2)
    const policy = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })
    // Inside the reuse interval the pre-verify token is a reuse, not the parent of the aal2 token.
    expect(Session.present(policy, raised, signedIn.generation, Time.plus(at, "1 second"))._tag).toBe(
      "ReuseDetected"
    )
    expect(Session.present(policy, raised, raised.generation, Time.plus(at, "1 second"))._tag).toBe("Rotate")
    const noDetection = authPolicy({ rotationEnabled: false, reuseInterval: Duration.zero })
    expect(Session.present(noDetection, raised, signedIn.generation, at)._tag).toBe("AlreadyUsed")
  })

  it("refreshing keeps the level and methods", () => {
    const refreshed = Session.rotate(raised, Time.plus(at, "1 hour"))
    expect([refreshed.aal, refreshed.amr, refreshed.factorId]).toEqual([
      raised.aal,
      raised.amr,
      raised.factorId
    ])
  })

  it("signs out the user's other aal1 sessions, not aal2 ones", () => {
    expect(Assurance.signedOutByVerify(signedIn)).toBe(true)
    expect(Assurance.signedOutByVerify(raised)).toBe(false)
  })
})

describe("Assurance after a factor is removed", () => {
  const at = Time.plus(t0, "2 minutes")
  const raised = Assurance.raise(signedIn, factorId, "phone", at)

  it("the session raised by the factor goes back to aal1 without the factor's method", () => {
    const lowered = Assurance.lower(raised, factorId, "phone", Time.plus(at, "1 minute"))
    expect([lowered.aal, lowered.factorId]).toEqual(["aal1", Option.none()])
    expect(lowered.amr).toEqual([new AmrEntry({ method: "password", timestamp: seconds(t0) })])
    expect(lowered.generation).toBe(raised.generation)
  })

  it("becomes aal1 even when another second factor's method stays, as Supabase Auth does", () => {
    const twice = Assurance.raise(
      Assurance.raise(signedIn, FactorId.make("00000000-0000-4000-8000-0000000000ee"), "totp", at),
      factorId,
      "phone",
      at
    )
    const lowered = Assurance.lower(twice, factorId, "phone", at)
    expect(lowered.aal).toBe("aal1")
    expect(lowered.amr.map((entry) => entry.method)).toEqual(["totp", "password"])
  })

  it("sessions raised by another factor, or not at all, are left alone", () => {
    const other = FactorId.make("00000000-0000-4000-8000-0000000000ee")
    expect(Assurance.lower(raised, other, "totp", at)).toBe(raised)
    expect(Assurance.lower(signedIn, factorId, "phone", at)).toBe(signedIn)
  })
})
