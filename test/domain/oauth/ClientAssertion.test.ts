import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ClientAssertion from "../../../domain/oauth/ClientAssertion.js"

const clientId = "https://app.example.com/oauth/client.json"
const issuer = "https://auth.example.com"
const now = new Date("2026-11-28T12:00:00Z")
const seconds = now.getTime() / 1000
const expected = { clientId, audiences: [issuer, `${issuer}/token`], now }

const claims = (overrides: Record<string, unknown> = {}) => ({
  iss: clientId,
  sub: clientId,
  aud: issuer,
  exp: seconds + 60,
  iat: seconds,
  jti: "a1b2c3",
  ...overrides
})

const reasonOf = (payload: unknown) =>
  Either.match(ClientAssertion.judge(payload, expected), {
    onLeft: (reason) => reason,
    onRight: () => "accepted"
  })

describe("ClientAssertion.judge (RFC 7523 §3)", () => {
  it("accepts the client's own assertion, to be remembered until it expires (with the skew)", () => {
    expect(ClientAssertion.judge(claims(), expected)).toEqual(
      Either.right({ jti: "a1b2c3", rememberUntil: new Date(now.getTime() + 60_000 + 60_000) })
    )
  })

  it.each([
    ["the token endpoint as aud", { aud: `${issuer}/token` }],
    ["aud as a list naming us", { aud: ["https://elsewhere.example", issuer] }],
    ["no iat or nbf", { iat: undefined }],
    ["an exp just past, within the skew", { exp: seconds - 30 }],
    ["an iat slightly ahead, within the skew", { iat: seconds + 30 }],
    ["an exp one hour ahead", { exp: seconds + 3600 }]
  ])("accepts %s", (_, overrides) => {
    expect(reasonOf(claims(overrides))).toBe("accepted")
  })

  it.each([
    ["another issuer", { iss: "https://evil.example/client.json" }, "iss and sub"],
    ["another subject", { sub: "someone-else" }, "iss and sub"],
    ["another audience", { aud: "https://other-server.example" }, "aud must be"],
    ["an audience list without us", { aud: ["https://a.example", "https://b.example"] }, "aud must be"],
    ["an expired assertion", { exp: seconds - 61 }, "expired"],
    ["an exp too far ahead", { exp: seconds + 3601 }, "must expire within"],
    ["an nbf ahead", { nbf: seconds + 120 }, "not valid yet"],
    ["an iat ahead", { iat: seconds + 120 }, "issued in the future"],
    ["no jti", { jti: undefined }, "must carry"],
    ["an empty jti", { jti: "" }, "must carry"],
    ["no exp", { exp: undefined }, "must carry"],
    ["a string exp", { exp: String(seconds + 60) }, "must carry"]
  ])("refuses %s", (_, overrides, reason) => {
    expect(reasonOf(claims(overrides))).toContain(reason)
  })

  it("refuses a payload that is no claims set", () => {
    expect(reasonOf("a string")).toContain("must carry")
    expect(reasonOf(null)).toContain("must carry")
  })
})
