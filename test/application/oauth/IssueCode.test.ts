import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type Approved, issueCode } from "../../../application/oauth/IssueCode.js"
import { AuthorizationCodeStore } from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import { Secrets } from "../../../application/ports/Secrets.js"
import { ClientId, UserId } from "../../../domain/Ids.js"
import { CodeChallenge } from "../../../domain/Pkce.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const approved: Approved = {
  clientId: ClientId.make("web-app"),
  userId: UserId.make("6a1f3c9e-2b4d-4e8f-9a7b-1c2d3e4f5a6b"),
  redirectUri: "https://app.example.com/cb?tenant=acme",
  codeChallenge: Option.some(CodeChallenge.make("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")),
  clientState: Option.some("client-state"),
  scope: Option.some("openid email"),
  resource: Option.some("https://api.example.com")
}

const now = new Date("2026-03-01T12:00:00.000Z")

/** The code a redirect carries, as the store holds it (consuming it). */
const storedCodeOf = (redirect: URL) =>
  Effect.gen(function* () {
    const code = redirect.searchParams.get("code") ?? ""
    const hash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(Redacted.make(code)))
    return yield* Effect.flatMap(AuthorizationCodeStore, (codes) => codes.consume(hash, now))
  })

describe("IssueCode (the code at the end of /callback or consent), on memory adapters", () => {
  it.effect("redirects to the client with a fresh code, its state and our issuer", () =>
    Effect.gen(function* () {
      const redirect = new URL(yield* issueCode(approved, now))
      expect(redirect.origin + redirect.pathname).toBe("https://app.example.com/cb")
      expect(redirect.searchParams.get("tenant")).toBe("acme")
      expect(redirect.searchParams.get("code")).toMatch(/^lkc_/)
      expect(redirect.searchParams.get("state")).toBe("client-state")
      expect(redirect.searchParams.get("iss")).toBe(Harness.issuer)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("stores the code by its hash, bound to the approved request, for 60 seconds", () =>
    Effect.gen(function* () {
      const redirect = new URL(yield* issueCode(approved, now))
      const stored = Option.getOrThrow(yield* storedCodeOf(redirect))
      expect(stored.wasConsumed).toBe(false)
      expect(stored.code).toMatchObject({
        clientId: approved.clientId,
        userId: approved.userId,
        redirectUri: approved.redirectUri,
        codeChallenge: approved.codeChallenge,
        scope: approved.scope,
        resource: approved.resource,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + 60_000)
      })
      expect(stored.code.hash).not.toContain(redirect.searchParams.get("code"))
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("sends no state the client did not send, and gives every code a grant of its own", () =>
    Effect.gen(function* () {
      const stateless = { ...approved, clientState: Option.none(), codeChallenge: Option.none() }
      const first = new URL(yield* issueCode(stateless, now))
      const second = new URL(yield* issueCode(stateless, now))
      expect(first.searchParams.has("state")).toBe(false)
      expect(first.searchParams.get("code")).not.toBe(second.searchParams.get("code"))
      const firstCode = Option.getOrThrow(yield* storedCodeOf(first)).code
      const secondCode = Option.getOrThrow(yield* storedCodeOf(second)).code
      expect(firstCode.codeChallenge).toEqual(Option.none())
      expect(firstCode.grantId).not.toBe(secondCode.grantId)
    }).pipe(Effect.provide(Harness.layer))
  )
})
