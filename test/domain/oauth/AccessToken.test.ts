import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import { ClientId, SecretHash, UserId } from "../../../domain/Ids.js"
import * as AccessToken from "../../../domain/oauth/AccessToken.js"

const day = 24 * 60 * 60 * 1000
const issuedAt = new Date(Date.UTC(2025, 0, 1, 12))
const at = (ms: number) => new Date(issuedAt.getTime() + ms)
const expiresAt = AccessToken.expiryFor(issuedAt)

const token = (revokedAt: Date | undefined) =>
  new AccessToken.AccessToken({
    hash: SecretHash.make("b".repeat(64)),
    userId: UserId.make("00000000-0000-4000-8000-000000000002"),
    clientId: ClientId.make("client-1"),
    grantId: Option.none(),
    familyId: Option.none(),
    scope: Option.none(),
    resource: Option.none(),
    issuedAt,
    expiresAt,
    revokedAt: Option.fromNullable(revokedAt)
  })

describe("AccessToken.expiryFor", () => {
  it("is 7 days after issue", () => {
    expect(expiresAt.getTime() - issuedAt.getTime()).toBe(7 * day)
  })
})

describe("AccessToken.isActive", () => {
  it.each([
    ["at issue", undefined, issuedAt, true],
    ["a day later", undefined, at(day), true],
    ["1 ms before expiry", undefined, at(7 * day - 1), true],
    ["at expiry", undefined, at(7 * day), false],
    ["after expiry", undefined, at(8 * day), false],
    ["revoked, right after revocation", at(day), at(day + 1), false],
    ["revoked, at the revocation instant", at(day), at(day), false],
    ["revoked, and expired", at(day), at(8 * day), false],
    // A revocation is final whatever instant it carries.
    ["revoked with a timestamp in the future", at(3 * day), at(day), false]
  ])("%s → %s", (_, revokedAt, now, expected) => {
    const t = token(revokedAt)
    expect(AccessToken.isActive(t, now)).toBe(expected)
    expect(AccessToken.isDead(t, now)).toBe(!expected)
  })
})
