import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Identity from "../../domain/Identity.js"

const row = {
  id: "3f6c1a2b-9d4e-4c8f-a1b2-c3d4e5f60718",
  userId: "8b0f3c9e-7a52-4f3b-9d7e-2a1c5e4b6d70",
  provider: "github",
  providerId: "1234567",
  identityData: { sub: "1234567", email: "Octo@Example.com", email_verified: true },
  email: "octo@example.com",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  lastSignInAt: "2025-01-01T00:00:00.000Z"
}

const decode = Schema.decodeUnknownEither(Identity.Identity)
const decodeSync = Schema.decodeUnknownSync(Identity.Identity)

describe("Identity.Identity", () => {
  it("round-trips a JSON row", () => {
    const identity = decodeSync(row)
    expect(identity.providerId).toBe("1234567")
    expect(identity.lastSignInAt).toEqual(Option.some(new Date("2025-01-01T00:00:00.000Z")))
    expect(Schema.encodeSync(Identity.Identity)(identity)).toEqual(row)
  })

  it("decodes a database row with Date timestamps and NULL columns", () => {
    const identity = decodeSync({
      ...row,
      email: null,
      lastSignInAt: null,
      createdAt: new Date("2025-01-01T00:00:00.000Z")
    })
    expect(identity.email).toEqual(Option.none())
    expect(identity.lastSignInAt).toEqual(Option.none())
    const encoded = Schema.encodeSync(Identity.Identity)(identity)
    expect(encoded.email).toBeNull()
    expect(encoded.createdAt).toBe("2025-01-01T00:00:00.000Z")
  })

  it.each([
    ["  Octo@Example.COM ", "octo@example.com"],
    ["weird but from the provider@x_y", "weird but from the provider@x_y"]
  ])("stores the provider's email %j as %j", (email, expected) => {
    expect(decodeSync({ ...row, email }).email).toEqual(Option.some(expected))
  })

  it.each([
    ["a non-UUID id", { id: "nope" }],
    ["a non-UUID userId", { userId: "nope" }],
    ["an empty provider", { provider: "" }],
    ["a blank provider", { provider: "  " }],
    ["an empty providerId", { providerId: "" }],
    ["identity data that is an array", { identityData: ["x"] }],
    ["a missing updatedAt", { updatedAt: undefined }],
    ["an unparsable lastSignInAt", { lastSignInAt: "soon" }]
  ])("refuses %s", (_, patch) => {
    expect(Either.isLeft(decode({ ...row, ...patch }))).toBe(true)
  })
})
