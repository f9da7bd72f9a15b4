import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Factor from "../../../domain/auth/Factor.js"
import { UserId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const userId = UserId.make("00000000-0000-4000-8000-0000000000aa")
let next = 0

const factor = (fields: Partial<ConstructorParameters<typeof Factor.Factor>[0]> = {}): Factor.Factor => {
  next += 1
  return new Factor.Factor({
    id: Factor.FactorId.make(`00000000-0000-4000-8000-${String(next).padStart(12, "0")}`),
    userId,
    friendlyName: `factor ${next}`,
    factorType: "totp",
    status: "verified",
    phone: Option.none(),
    lastChallengedAt: Option.none(),
    createdAt: t0,
    updatedAt: t0,
    ...fields
  })
}

const totp = (friendlyName: string): Factor.EnrolRequest => ({
  factorType: "totp",
  friendlyName,
  phone: Option.none()
})

const phone = (number: string, friendlyName = "phone"): Factor.EnrolRequest => ({
  factorType: "phone",
  friendlyName,
  phone: Option.some(number)
})

describe("Factor enrolment rule", () => {
  it("a first factor is allowed at aal1", () => {
    expect(Factor.enrol([], totp("app"), Factor.defaultLimits, "aal1")).toEqual(
      Factor.Enrolment.Allowed({ replaces: [] })
    )
  })

  it("friendly names are unique per user, the empty name included, as Supabase Auth compares them", () => {
    const existing = [factor({ friendlyName: "app", status: "unverified" })]
    expect(Factor.enrol(existing, totp("app"), Factor.defaultLimits, "aal2")).toEqual(
      Factor.Enrolment.NameConflict({ friendlyName: "app" })
    )
    const unnamed = [factor({ friendlyName: "", status: "unverified" })]
    expect(Factor.enrol(unnamed, totp(""), Factor.defaultLimits, "aal1")._tag).toBe("NameConflict")
    expect(Factor.enrol(existing, totp("App"), Factor.defaultLimits, "aal2")._tag).toBe("Allowed")
  })

  it("factors of any status count towards MFA_MAX_ENROLLED_FACTORS", () => {
    const limits = { maxEnrolled: 2, maxVerified: 10 }
    const existing = [factor({ status: "unverified" }), factor({ status: "unverified" })]
    expect(Factor.enrol(existing, totp("new"), limits, "aal1")).toEqual(Factor.Enrolment.TooManyFactors())
    expect(Factor.enrol(existing.slice(1), totp("new"), limits, "aal1")._tag).toBe("Allowed")
  })

  it("verified factors count towards MFA_MAX_VERIFIED_FACTORS", () => {
    const limits = { maxEnrolled: 10, maxVerified: 1 }
    expect(Factor.enrol([factor()], totp("new"), limits, "aal2")).toEqual(Factor.Enrolment.TooManyFactors())
    expect(Factor.enrol([factor({ status: "unverified" })], totp("new"), limits, "aal1")._tag).toBe("Allowed")
  })

  it("recovery codes count towards neither limit", () => {
    const limits = { maxEnrolled: 1, maxVerified: 1 }
    const codes = factor({ factorType: "recovery_code", friendlyName: "Recovery codes" })
    expect(Factor.enrol([codes], totp("new"), limits, "aal2")._tag).toBe("Allowed")
  })

  it("a user with a verified factor enrols another only at aal2", () => {
    expect(Factor.enrol([factor()], totp("new"), Factor.defaultLimits, "aal1")).toEqual(
      Factor.Enrolment.InsufficientAal()
    )
    expect(Factor.enrol([factor()], totp("new"), Factor.defaultLimits, "aal2")._tag).toBe("Allowed")
    expect(
      Factor.enrol([factor({ status: "unverified" })], totp("new"), Factor.defaultLimits, "aal1")._tag
    ).toBe("Allowed")
  })

  it("checks in Supabase Auth's order: name before limits before the level", () => {
    const limits = { maxEnrolled: 1, maxVerified: 1 }
    const existing = [factor({ friendlyName: "app" })]
    expect(Factor.enrol(existing, totp("app"), limits, "aal1")._tag).toBe("NameConflict")
    expect(Factor.enrol(existing, totp("other"), limits, "aal1")._tag).toBe("TooManyFactors")
  })

  it("a verified phone factor of the same number refuses; unverified ones of it are replaced", () => {
    const verified = factor({ factorType: "phone", phone: Option.some("15555550100"), friendlyName: "phone" })
    expect(Factor.enrol([verified], phone("15555550100"), Factor.defaultLimits, "aal2")).toEqual(
      Factor.Enrolment.VerifiedPhoneExists()
    )
    const pending = factor({
      factorType: "phone",
      phone: Option.some("15555550100"),
      friendlyName: "phone",
      status: "unverified"
    })
    const other = factor({ factorType: "phone", phone: Option.some("15555550199"), status: "unverified" })
    // The replaced factor's name no longer conflicts, and it no longer counts.
    expect(
      Factor.enrol([pending, other], phone("15555550100"), { maxEnrolled: 2, maxVerified: 10 }, "aal1")
    ).toEqual(Factor.Enrolment.Allowed({ replaces: [pending.id] }))
  })
})

describe("Factor lifecycle", () => {
  it("an unverified factor nobody challenged is abandoned after MFA_FACTOR_EXPIRY_DURATION", () => {
    const pending = factor({ status: "unverified" })
    const lifetime = Duration.minutes(10)
    expect(Factor.isAbandoned(pending, false, lifetime, Time.plus(t0, "10 minutes"))).toBe(false)
    expect(
      Factor.isAbandoned(
        pending,
        false,
        lifetime,
        Time.plus(t0, Duration.sum(Duration.minutes(10), Duration.millis(1)))
      )
    ).toBe(true)
    expect(Factor.isAbandoned(pending, true, lifetime, Time.plus(t0, "1 day"))).toBe(false)
    expect(Factor.isAbandoned(factor(), false, lifetime, Time.plus(t0, "1 day"))).toBe(false)
  })

  it("a lifetime under 300 seconds counts as 300 seconds", () => {
    const pending = factor({ status: "unverified" })
    expect(Factor.isAbandoned(pending, false, Duration.seconds(10), Time.plus(t0, "299 seconds"))).toBe(false)
    expect(Factor.isAbandoned(pending, false, Duration.seconds(10), Time.plus(t0, "301 seconds"))).toBe(true)
  })

  it("a verify makes the factor verified once; its unverified siblings of the same type go", () => {
    const pending = factor({ status: "unverified" })
    const at = Time.plus(t0, "1 minute")
    const verified = Factor.verify(pending, at)
    expect([verified.status, verified.updatedAt]).toEqual(["verified", at])
    expect(Factor.verify(verified, Time.plus(at, "1 hour"))).toBe(verified)
    const sibling = factor({ status: "unverified" })
    const otherType = factor({ status: "unverified", factorType: "webauthn" })
    expect(Factor.supersededBy(verified, [verified, sibling, otherType, factor()])).toEqual([sibling.id])
  })

  it("a verified factor is removed by its user only from an aal2 session", () => {
    expect(Factor.mayUnenrol(factor(), "aal1")).toBe(false)
    expect(Factor.mayUnenrol(factor(), "aal2")).toBe(true)
    expect(Factor.mayUnenrol(factor({ status: "unverified" }), "aal1")).toBe(true)
  })

  it("recovery codes leave with the last other verified factor", () => {
    const codes = factor({ factorType: "recovery_code" })
    expect(Factor.orphanedRecoveryCodes([codes, factor()])).toEqual(Option.none())
    expect(Factor.orphanedRecoveryCodes([codes, factor({ status: "unverified" })])).toEqual(
      Option.some(codes.id)
    )
    expect(Factor.orphanedRecoveryCodes([codes])).toEqual(Option.some(codes.id))
    expect(Factor.orphanedRecoveryCodes([factor()])).toEqual(Option.none())
  })

  it("a challenge stamps last_challenged_at", () => {
    const at = Time.plus(t0, "5 minutes")
    expect(Factor.challenged(factor(), at).lastChallengedAt).toEqual(Option.some(at))
  })
})

describe("Factor assurance levels", () => {
  it("the highest possible level is aal2 once a factor is verified", () => {
    expect(Factor.highestPossibleAal([])).toBe("aal1")
    expect(Factor.highestPossibleAal([factor({ status: "unverified" })])).toBe("aal1")
    expect(Factor.highestPossibleAal([factor()])).toBe("aal2")
  })

  it("the next level is auth-js's: aal2 with a verified factor, else the current level", () => {
    expect(Factor.nextLevel("aal1", [])).toBe("aal1")
    expect(Factor.nextLevel("aal1", [factor()])).toBe("aal2")
    expect(Factor.nextLevel("aal2", [factor()])).toBe("aal2")
    expect(Factor.nextLevel("aal2", [])).toBe("aal2")
  })

  it("changing credentials with a verified factor needs aal2", () => {
    expect(Factor.updateNeedsAal2([factor()], "aal1", true)).toBe(true)
    expect(Factor.updateNeedsAal2([factor()], "aal2", true)).toBe(false)
    expect(Factor.updateNeedsAal2([factor()], "aal1", false)).toBe(false)
    expect(Factor.updateNeedsAal2([factor({ status: "unverified" })], "aal1", true)).toBe(false)
  })
})
