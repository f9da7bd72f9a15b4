import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ClientId, GrantId, SecretHash, UserId } from "../../../domain/Ids.js"
import * as AuthorizationCode from "../../../domain/oauth/AuthorizationCode.js"
import { CodeChallenge } from "../../../domain/Pkce.js"

const second = 1000
const day = 24 * 60 * 60 * second
const issuedAt = new Date(Date.UTC(2025, 0, 1, 12))
const at = (ms: number) => new Date(issuedAt.getTime() + ms)

const clientId = ClientId.make("client-1")
const otherClient = ClientId.make("client-2")
const redirectUri = "http://127.0.0.1:8080/cb"

const code = new AuthorizationCode.AuthorizationCode({
  hash: SecretHash.make("a".repeat(64)),
  grantId: GrantId.make("00000000-0000-4000-8000-000000000001"),
  clientId,
  userId: UserId.make("00000000-0000-4000-8000-000000000002"),
  redirectUri,
  codeChallenge: Option.none(),
  scope: Option.none(),
  resource: Option.none(),
  issuedAt,
  expiresAt: AuthorizationCode.expiryFor(issuedAt),
  consumedAt: Option.none()
})

/** The same code bound to a PKCE challenge. */
const pkceCode = new AuthorizationCode.AuthorizationCode({
  ...code,
  codeChallenge: Option.some(CodeChallenge.make("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
})

const reasonOf = (
  presented: {
    readonly clientId: ClientId
    readonly redirectUri: string | undefined
    readonly wasConsumed: boolean
  },
  now: Date,
  presentedTo: AuthorizationCode.AuthorizationCode = code
) =>
  Either.match(
    AuthorizationCode.check(
      presentedTo,
      { ...presented, redirectUri: Option.fromNullable(presented.redirectUri) },
      now
    ),
    {
      onLeft: (error) => error.reason,
      onRight: () => "ok"
    }
  )

describe("AuthorizationCode.expiryFor", () => {
  it("is 60 seconds after issue, within the 10 minutes of RFC 6749 §4.1.2", () => {
    const expiry = AuthorizationCode.expiryFor(issuedAt)
    expect(expiry.getTime() - issuedAt.getTime()).toBe(60 * second)
    expect(expiry.getTime() - issuedAt.getTime()).toBeLessThanOrEqual(10 * 60 * second)
  })
})

describe("AuthorizationCode.check", () => {
  const inTime = at(30 * second)
  const expiresAt = at(60 * second)
  const late = at(61 * second)

  it.each([
    ["the right client, URI, in time", clientId, redirectUri, false, inTime, "ok"],
    ["just issued", clientId, redirectUri, false, issuedAt, "ok"],
    ["1 ms before expiry", clientId, redirectUri, false, at(60 * second - 1), "ok"],
    // A replay is reported as such whatever else is wrong: the caller must revoke the grant.
    ["a replay", clientId, redirectUri, true, inTime, "already_used"],
    ["a replay after expiry", clientId, redirectUri, true, late, "already_used"],
    ["a replay by another client", otherClient, redirectUri, true, inTime, "already_used"],
    ["a replay with another URI", clientId, "http://127.0.0.1:8080/other", true, inTime, "already_used"],
    [
      "a replay by another client, expired, other URI",
      otherClient,
      "https://x.test/",
      true,
      late,
      "already_used"
    ],
    ["another client", otherClient, redirectUri, false, inTime, "client_mismatch"],
    ["another client, expired, other URI", otherClient, "https://x.test/", false, late, "client_mismatch"],
    ["exactly at expiry", clientId, redirectUri, false, expiresAt, "expired"],
    ["after expiry", clientId, redirectUri, false, late, "expired"],
    ["a day after expiry", clientId, redirectUri, false, at(day), "expired"],
    ["expired with another URI", clientId, "https://x.test/", false, late, "expired"],
    ["another URI", clientId, "http://127.0.0.1:8080/other", false, inTime, "redirect_uri_mismatch"],
    // The redirect URI at /token is compared exactly, even on loopback (no port leniency).
    ["another loopback port", clientId, "http://127.0.0.1:9090/cb", false, inTime, "redirect_uri_mismatch"],
    ["a trailing slash", clientId, `${redirectUri}/`, false, inTime, "redirect_uri_mismatch"],
    ["an empty URI", clientId, "", false, inTime, "redirect_uri_mismatch"],
    // Without a PKCE challenge the redirect URI is all that binds the code (RFC 6749 §4.1.3).
    ["no URI, the code has no challenge", clientId, undefined, false, inTime, "redirect_uri_missing"],
    ["no URI, a replay", clientId, undefined, true, inTime, "already_used"],
    ["no URI, another client", otherClient, undefined, false, inTime, "client_mismatch"]
  ])("%s → %s", (_, presentedClient, presentedUri, wasConsumed, now, expected) => {
    expect(reasonOf({ clientId: presentedClient, redirectUri: presentedUri, wasConsumed }, now)).toBe(
      expected
    )
  })

  // OAuth 2.1 (draft-ietf-oauth-v2-1 §10): with PKCE the token request may leave it out.
  it.each([
    ["no URI", undefined, false, inTime, "ok"],
    ["the URI used at authorize", redirectUri, false, inTime, "ok"],
    ["another URI", "http://127.0.0.1:8080/other", false, inTime, "redirect_uri_mismatch"],
    ["no URI, expired", undefined, false, late, "expired"],
    ["no URI, a replay", undefined, true, inTime, "already_used"]
  ])("a code bound to a PKCE challenge, %s → %s", (_, presentedUri, wasConsumed, now, expected) => {
    expect(reasonOf({ clientId, redirectUri: presentedUri, wasConsumed }, now, pkceCode)).toBe(expected)
  })

  it("returns the code itself when it is right", () => {
    expect(
      AuthorizationCode.check(
        code,
        { clientId, redirectUri: Option.some(redirectUri), wasConsumed: false },
        inTime
      )
    ).toEqual(Either.right(code))
  })
})

describe("AuthorizationCode.isPurgeable", () => {
  const expiresAt = code.expiresAt.getTime()
  it.each([
    ["at issue", issuedAt.getTime(), false],
    ["at expiry", expiresAt, false],
    ["1 ms before expiry + 1 day", expiresAt + day - 1, false],
    ["at expiry + 1 day", expiresAt + day, true],
    ["a week later", expiresAt + 7 * day, true]
  ])("%s → %s", (_, now, expected) => {
    expect(AuthorizationCode.isPurgeable(code, new Date(now))).toBe(expected)
  })
})
