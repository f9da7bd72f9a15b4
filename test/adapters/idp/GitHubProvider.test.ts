import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as client from "openid-client"
import * as ProviderCatalog from "../../../adapters/idp/ProviderCatalog.js"
import * as GitHub from "../../../adapters/idp/providers/github.js"
import type { UpstreamRequest } from "../../../application/ports/UpstreamIdentityProvider.js"

const credentials = { clientId: "Iv1.0123456789abcdef", clientSecret: Redacted.make("github-secret") }

const newRequest = (): UpstreamRequest => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
  redirectUri: "https://auth.example.com/callback"
})

describe("github provider (offline)", () => {
  it.effect("builds the authorization URL: endpoint, client, redirect, scope, state, S256 challenge", () =>
    Effect.gen(function* () {
      const github = yield* ProviderCatalog.build("github", credentials)
      const request = newRequest()
      const url = yield* github.authorizationUrl(request)

      expect(github.name).toBe("github")
      expect(`${url.origin}${url.pathname}`).toBe("https://github.com/login/oauth/authorize")
      const sent = url.searchParams
      expect(sent.get("client_id")).toBe(credentials.clientId)
      expect(sent.get("redirect_uri")).toBe(request.redirectUri)
      expect(sent.get("response_type")).toBe("code")
      expect(sent.get("scope")).toBe("read:user user:email")
      expect(sent.get("state")).toBe(request.state)
      expect(sent.get("code_challenge_method")).toBe("S256")
      expect(sent.get("code_challenge")).toBe(
        createHash("sha256").update(request.codeVerifier).digest("base64url")
      )
      // Plain OAuth 2.0: no nonce, and the secret never travels in a browser URL.
      expect(sent.has("nonce")).toBe(false)
      expect(url.href).not.toContain("github-secret")
    })
  )

  it("takes the primary verified email, and no email when the primary one is unverified", () => {
    const user = { id: 583231, login: "octocat", name: "The Octocat", avatar_url: "https://a.example/o.png" }
    const verified = GitHub.profileOf(user, [
      { email: "old@example.com", primary: false, verified: true },
      { email: "octocat@example.com", primary: true, verified: true }
    ])
    expect(verified.provider).toBe("github")
    expect(verified.subject).toBe("583231")
    expect(verified.email).toEqual(Option.some("octocat@example.com"))
    expect(verified.emailVerified).toBe(true)
    expect(verified.data).toMatchObject({
      sub: "583231",
      provider_id: "583231",
      user_name: "octocat",
      name: "The Octocat",
      full_name: "The Octocat",
      avatar_url: "https://a.example/o.png",
      email: "octocat@example.com",
      email_verified: true
    })

    const unverified = GitHub.profileOf({ id: 1, login: "someone", name: null }, [
      { email: "someone@example.com", primary: true, verified: false }
    ])
    expect(unverified.email).toEqual(Option.none())
    expect(unverified.emailVerified).toBe(false)
    expect(unverified.data).not.toHaveProperty("name")
  })
})

describe("ProviderCatalog", () => {
  it("knows its providers by the name recorded on identities", () => {
    for (const name of ["github", "google", "oidc"]) {
      expect(Option.map(ProviderCatalog.find(name), (entry) => entry.name)).toEqual(Option.some(name))
    }
    expect(ProviderCatalog.find("myspace")).toEqual(Option.none())
    expect(ProviderCatalog.find("toString")).toEqual(Option.none())
  })

  it.effect("google is the oidc provider at accounts.google.com, discovered only when first used", () =>
    Effect.gen(function* () {
      const google = yield* ProviderCatalog.build("google", {
        ...credentials,
        issuerUrl: new URL("http://ignored.example.com")
      })
      expect(google.name).toBe("google")
    })
  )
})
