import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Factor from "../../../domain/auth/Factor.js"
import * as FactorChallenge from "../../../domain/auth/FactorChallenge.js"
import { UserId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const ip = "203.0.113.7"
const configured = Duration.seconds(300)

const challenge = new FactorChallenge.FactorChallenge({
  id: FactorChallenge.ChallengeId.make("00000000-0000-4000-8000-000000000001"),
  factorId: Factor.FactorId.make("00000000-0000-4000-8000-000000000002"),
  ipAddress: ip,
  otpCodeHash: Option.none(),
  webAuthn: Option.none(),
  createdAt: t0,
  verifiedAt: Option.none()
})

const phoneFactor = (lastChallengedAt: Option.Option<Date>) =>
  new Factor.Factor({
    id: Factor.FactorId.make("00000000-0000-4000-8000-000000000003"),
    userId: UserId.make("00000000-0000-4000-8000-000000000004"),
    friendlyName: "",
    factorType: "phone",
    status: "verified",
    phone: Option.some("15555550100"),
    lastChallengedAt,
    createdAt: t0,
    updatedAt: t0
  })

describe("FactorChallenge expiry", () => {
  it("expires_at is creation plus MFA_CHALLENGE_EXPIRY_DURATION, in unix seconds", () => {
    expect(FactorChallenge.expiresAtSeconds(challenge, configured)).toBe(t0.getTime() / 1000 + 300)
    expect(FactorChallenge.expiresAtSeconds(challenge, Duration.minutes(10))).toBe(t0.getTime() / 1000 + 600)
  })

  it("a lifetime under 300 seconds counts as 300", () => {
    expect(FactorChallenge.expiresAt(challenge, Duration.seconds(30))).toEqual(Time.plus(t0, "300 seconds"))
  })

  it("is usable through its expiry instant and expired just after", () => {
    const end = FactorChallenge.expiresAt(challenge, configured)
    expect(FactorChallenge.standing(challenge, ip, end, configured)).toEqual(
      FactorChallenge.Standing.Usable()
    )
    expect(FactorChallenge.standing(challenge, ip, new Date(end.getTime() + 1), configured)).toEqual(
      FactorChallenge.Standing.Expired()
    )
  })
})

describe("FactorChallenge single use", () => {
  it("a used challenge is spent, whatever the time", () => {
    const used = FactorChallenge.use(challenge, Time.plus(t0, "10 seconds"))
    expect(used.verifiedAt).toEqual(Option.some(Time.plus(t0, "10 seconds")))
    expect(FactorChallenge.standing(used, ip, Time.plus(t0, "11 seconds"), configured)).toEqual(
      FactorChallenge.Standing.Spent()
    )
    // Using it again keeps the first use.
    expect(FactorChallenge.use(used, Time.plus(t0, "20 seconds"))).toBe(used)
  })

  it("a challenge answered from another address is spent, checked before expiry as Supabase Auth does", () => {
    expect(FactorChallenge.standing(challenge, "198.51.100.1", t0, configured)).toEqual(
      FactorChallenge.Standing.Spent()
    )
    expect(FactorChallenge.standing(challenge, "198.51.100.1", Time.plus(t0, "1 day"), configured)).toEqual(
      FactorChallenge.Standing.Spent()
    )
  })
})

describe("Phone challenge pacing", () => {
  const minute = Duration.minutes(1)

  it("a factor never challenged may be texted at once", () => {
    expect(FactorChallenge.phoneWait(phoneFactor(Option.none()), t0, minute)).toEqual(Option.none())
  })

  it("waits MFA_PHONE_MAX_FREQUENCY after the last challenge, counting whole seconds down", () => {
    const factor = phoneFactor(Option.some(t0))
    expect(FactorChallenge.phoneWait(factor, Time.plus(t0, "1500 millis"), minute)).toEqual(Option.some(58))
    expect(FactorChallenge.phoneWait(factor, Time.plus(t0, "59500 millis"), minute)).toEqual(Option.some(0))
    expect(FactorChallenge.phoneWait(factor, Time.plus(t0, "60 seconds"), minute)).toEqual(Option.some(0))
    expect(FactorChallenge.phoneWait(factor, Time.plus(t0, "60001 millis"), minute)).toEqual(Option.none())
  })

  it("a frequency of 0 means one minute", () => {
    const factor = phoneFactor(Option.some(t0))
    expect(FactorChallenge.phoneWait(factor, Time.plus(t0, "30 seconds"), Duration.zero)).toEqual(
      Option.some(30)
    )
  })

  it("the code length is 6 to 10 digits, anything else 6", () => {
    expect([5, 6, 8, 10, 11, 7.5].map(FactorChallenge.phoneCodeLength)).toEqual([6, 6, 8, 10, 6, 6])
  })
})
