import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccessTokenClaims from "../../../domain/auth/AccessTokenClaims.js"
import * as BadJwt from "../../../domain/auth/BadJwt.js"
import { UserId } from "../../../domain/Ids.js"
import { Email, type User } from "../../../domain/User.js"
import * as Fixtures from "../../support/auth/Fixtures.js"

const created = new Date(Date.UTC(2025, 0, 1))
const user = (overrides: Partial<ConstructorParameters<typeof User>[0]> = {}) =>
  Fixtures.user({
    id: UserId.make("00000000-0000-4000-8000-000000000001"),
    email: Option.none(),
    userMetadata: { name: "Ada" },
    createdAt: created,
    updatedAt: created,
    ...overrides
  })

const sessionId = "00000000-0000-4000-8000-0000000000aa"

describe("AccessTokenClaims.issue", () => {
  it("issues Supabase Auth's claims, in its order, with empty strings for a missing email or phone", () => {
    const now = new Date(Date.UTC(2025, 0, 1, 12, 0, 0, 750))
    const claims = AccessTokenClaims.issue({
      user: user(),
      session: {
        sessionId,
        aal: "aal1",
        amr: [new AccessTokenClaims.AmrEntry({ method: "password", timestamp: 1735732800 })]
      },
      issuer: "https://auth.example.com/auth/v1",
      now,
      lifetime: "1 hour"
    })
    const payload = AccessTokenClaims.encode(claims)
    expect(payload).toEqual({
      iss: "https://auth.example.com/auth/v1",
      sub: "00000000-0000-4000-8000-000000000001",
      aud: "authenticated",
      exp: 1735736400,
      iat: 1735732800,
      email: "",
      phone: "",
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: { name: "Ada" },
      role: "authenticated",
      aal: "aal1",
      amr: [{ method: "password", timestamp: 1735732800 }],
      session_id: sessionId,
      is_anonymous: false
    })
    expect(Object.keys(payload)).toEqual([
      "iss",
      "sub",
      "aud",
      "exp",
      "iat",
      "email",
      "phone",
      "app_metadata",
      "user_metadata",
      "role",
      "aal",
      "amr",
      "session_id",
      "is_anonymous"
    ])
  })

  it("carries the email, phone and anonymity the user has", () => {
    const claims = AccessTokenClaims.issue({
      user: user({
        email: Option.some(Schema.decodeSync(Email)("ada@example.com")),
        isAnonymous: true
      }),
      session: { sessionId, aal: "aal2", amr: [] },
      issuer: "iss",
      now: created,
      lifetime: "10 minutes"
    })
    expect(claims.email).toBe("ada@example.com")
    expect(claims.isAnonymous).toBe(true)
    expect(claims.exp - claims.iat).toBe(600)
  })
})

describe("AccessTokenClaims.VerifiedClaims", () => {
  it("decodes what was issued", () => {
    const claims = AccessTokenClaims.issue({
      user: user(),
      session: { sessionId, aal: "aal1", amr: [] },
      issuer: "iss",
      now: created,
      lifetime: "1 hour"
    })
    const decoded = AccessTokenClaims.decodeVerified(AccessTokenClaims.encode(claims))
    expect(Either.isRight(decoded) && decoded.right.sub).toBe(claims.sub)
    expect(Either.isRight(decoded) && decoded.right.sessionId).toBe(sessionId)
  })

  it("decodes a service token: role service_role, no sub, no session", () => {
    const decoded = AccessTokenClaims.decodeVerified({
      iss: "supabase",
      ref: "project",
      role: "service_role",
      iat: 1735732800,
      exp: 2051308800
    })
    expect(Either.isRight(decoded)).toBe(true)
    if (Either.isRight(decoded)) {
      expect(decoded.right.role).toBe("service_role")
      expect(decoded.right.sub).toBeUndefined()
      expect(decoded.right.email).toBe("")
      expect(decoded.right.amr).toEqual([])
    }
  })

  it("reads an amr of plain names, an array audience and nulls as Supabase Auth does", () => {
    const decoded = AccessTokenClaims.decodeVerified({
      sub: "x",
      aud: ["a", "b"],
      exp: 1,
      amr: ["password"],
      email: null
    })
    expect(Either.isRight(decoded) && decoded.right.amr.map((entry) => entry.method)).toEqual(["password"])
    expect(Either.isRight(decoded) && decoded.right.email).toBe("")
  })

  it("refuses claims of the wrong types", () => {
    expect(Either.isLeft(AccessTokenClaims.decodeVerified({ exp: "tomorrow" }))).toBe(true)
  })
})

describe("BadJwt", () => {
  it("words an expiry as Supabase Auth's JWT library does", () => {
    expect(BadJwt.expired(0).message).toBe(
      "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired by 0s"
    )
    expect(BadJwt.expired(90_500).message).toContain("token is expired by 1m30s")
    expect(BadJwt.expired(7_205_000).message).toContain("token is expired by 2h0m5s")
  })
})
