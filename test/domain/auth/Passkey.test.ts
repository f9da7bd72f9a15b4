import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Passkey from "../../../domain/auth/Passkey.js"
import * as WebAuthnCeremony from "../../../domain/auth/WebAuthnCeremony.js"
import { SecretHash, UserId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"

const t0 = new Date("2026-01-01T00:00:00.000Z")
const userId = UserId.make("0b9f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4")
const otherUser = UserId.make("1c0a2d3f-4e5b-4c6d-9e7f-8091a2b3c4d5")

const ceremony = new WebAuthnCeremony.WebAuthnCeremony({
  type: "create",
  challengeHash: SecretHash.make("a".repeat(64)),
  userVerification: "preferred"
})

const challenge = (purpose: Passkey.ChallengePurpose, owner: Option.Option<UserId>) =>
  new Passkey.PasskeyChallenge({
    id: Passkey.PasskeyChallengeId.make("00000000-0000-4000-8000-000000000001"),
    userId: owner,
    purpose,
    ceremony,
    createdAt: t0,
    expiresAt: Passkey.expiresAt(t0, Passkey.defaultChallengeLifetime)
  })

describe("Passkey limits and names", () => {
  it("a user holds at most PASSKEY_MAX_PASSKEYS_PER_USER passkeys", () => {
    expect(Passkey.mayRegister(9, Passkey.defaultMaxPerUser)).toBe(true)
    expect(Passkey.mayRegister(10, Passkey.defaultMaxPerUser)).toBe(false)
  })

  it("a name is required and at most 120 bytes", () => {
    expect(Passkey.checkFriendlyName("")).toEqual(Option.some("missing"))
    expect(Passkey.checkFriendlyName("x".repeat(120))).toEqual(Option.none())
    expect(Passkey.checkFriendlyName("x".repeat(121))).toEqual(Option.some("too_long"))
    // Sixty-one two-byte letters are 122 bytes, as Go's len counts them.
    expect(Passkey.checkFriendlyName("é".repeat(61))).toEqual(Option.some("too_long"))
  })
})

describe("Passkey signature counter", () => {
  it("must grow, except for authenticators that always send 0", () => {
    expect(Passkey.signCountAccepted(0, 0)).toBe(true)
    expect(Passkey.signCountAccepted(0, 1)).toBe(true)
    expect(Passkey.signCountAccepted(5, 6)).toBe(true)
    expect(Passkey.signCountAccepted(5, 5)).toBe(false)
    expect(Passkey.signCountAccepted(5, 4)).toBe(false)
    expect(Passkey.signCountAccepted(5, 0)).toBe(false)
  })
})

describe("Passkey challenges", () => {
  it("expire after WEBAUTHN_CHALLENGE_EXPIRY_DURATION, usable through the instant", () => {
    const registration = challenge("registration", Option.some(userId))
    const end = Time.plus(t0, "5 minutes")
    expect(Passkey.standing(Option.some(registration), "registration", Option.some(userId), end)._tag).toBe(
      "Usable"
    )
    expect(
      Passkey.standing(
        Option.some(registration),
        "registration",
        Option.some(userId),
        new Date(end.getTime() + 1)
      )._tag
    ).toBe("Expired")
  })

  it("belong to one purpose and one user; a sign-in challenge to nobody", () => {
    const registration = challenge("registration", Option.some(userId))
    expect(Passkey.standing(Option.some(registration), "authentication", Option.some(userId), t0)._tag).toBe(
      "NotFound"
    )
    expect(Passkey.standing(Option.some(registration), "registration", Option.some(otherUser), t0)._tag).toBe(
      "NotFound"
    )
    expect(Passkey.standing(Option.some(registration), "registration", Option.none(), t0)._tag).toBe(
      "NotFound"
    )
    const signIn = challenge("authentication", Option.none())
    expect(Passkey.standing(Option.some(signIn), "authentication", Option.none(), t0)._tag).toBe("Usable")
    expect(Passkey.standing(Option.some(signIn), "authentication", Option.some(userId), t0)._tag).toBe(
      "NotFound"
    )
  })

  it("one already consumed is not found", () => {
    expect(Passkey.standing(Option.none(), "authentication", Option.none(), t0)._tag).toBe("NotFound")
  })
})

describe("WebAuthn user handles", () => {
  it("are the UTF-8 bytes of the user id, as Supabase Auth's, and read back to it", () => {
    const handle = WebAuthnCeremony.userHandleOf(userId)
    expect(Buffer.from(handle).toString("utf8")).toBe(userId)
    expect(WebAuthnCeremony.userIdOfHandle(handle)).toEqual(Option.some(userId))
  })

  it("a handle that names no user id is none", () => {
    expect(WebAuthnCeremony.userIdOfHandle(new Uint8Array([1, 2, 3]))).toEqual(Option.none())
    expect(WebAuthnCeremony.userIdOfHandle(new TextEncoder().encode(`${userId} `))).toEqual(Option.none())
  })
})
