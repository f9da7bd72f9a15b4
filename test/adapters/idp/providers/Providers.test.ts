import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { generateKeyPair, SignJWT } from "jose"
import * as client from "openid-client"
import * as ProviderCatalog from "../../../../adapters/idp/ProviderCatalog.js"
import * as Apple from "../../../../adapters/idp/providers/apple.js"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../../../application/ports/UpstreamIdentityProvider.js"
import type * as FakeProvider from "../../../support/idp/FakeProvider.js"
import {
  cases,
  clientId,
  clientSecret,
  credentialsFor,
  fakeFor,
  githubEnterprise,
  providerTokens
} from "../../../support/idp/ProviderCases.js"

/**
 * Every OAuth 2.0 provider of the catalog against a local fake of it: the authorization URL it
 * builds, the token request it sends, the API calls it makes, and the profile, identity data
 * and provider tokens that come out. Twitter (OAuth 1.0a) has its own file.
 */

const redirectUri = "https://auth.example.com/callback"
const extraScope = "extra:scope"

const newRequest = (parameters?: Readonly<Record<string, string>>): UpstreamRequest => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
  redirectUri,
  extraScopes: [extraScope],
  ...(parameters === undefined ? {} : { parameters })
})

// As Supabase Auth's client sends it: `-` is not escaped, which providers that do not unescape need.
const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`

describe("external providers against a local fake", () => {
  for (const testCase of [...cases, githubEnterprise]) {
    const label = testCase === githubEnterprise ? "github (Enterprise Server)" : testCase.name
    it.scoped(`${label}: authorization URL, code exchange, profile, identity data, tokens`, () =>
      Effect.gen(function* () {
        const { fake, setAuthorization } = yield* fakeFor(testCase)
        const traits = ProviderCatalog.traits(testCase.name)
        const upstream = yield* ProviderCatalog.build(testCase.name, yield* credentialsFor(testCase, fake))
        expect(upstream.name).toBe(testCase.name)

        const request = newRequest(testCase.parameters)
        const url = yield* upstream.authorizationUrl(request)
        setAuthorization(url)
        expect(`${url.origin}${url.pathname}`).toBe(`${fake.origin.origin}${testCase.authorize}`)
        const sent = url.searchParams
        expect(sent.get("client_id")).toBe(clientId)
        expect(sent.get("redirect_uri")).toBe(redirectUri)
        expect(sent.get("response_type")).toBe("code")
        expect(sent.get("state")).toBe(request.state)
        expect(sent.get("scope")).toBe([testCase.scope, extraScope].filter((part) => part !== "").join(" "))
        expect(sent.get("nonce")).toBe(traits.nonce ? request.nonce : null)
        expect(sent.get("code_challenge")).toBe(
          traits.pkce ? createHash("sha256").update(request.codeVerifier).digest("base64url") : null
        )
        expect(sent.get("code_challenge_method")).toBe(traits.pkce ? "S256" : null)
        for (const [name, value] of Object.entries(testCase.sentParameters ?? {}))
          expect(sent.get(name)).toBe(value)
        expect(traits.callback).toBe(testCase.name === "apple" ? "form_post" : "query")
        expect(url.href).not.toContain(clientSecret)

        const callback = new URL(redirectUri)
        callback.searchParams.set("code", `code-${testCase.name}`)
        callback.searchParams.set("state", request.state)
        for (const [name, value] of Object.entries(testCase.callback ?? {}))
          callback.searchParams.set(name, value)
        const profile = yield* upstream.exchange(callback, request)

        expect(profile.provider).toBe(testCase.name)
        expect(profile.subject).toBe(testCase.subject)
        expect(profile.email).toEqual(Option.fromNullable(testCase.email))
        expect(profile.emailVerified).toBe(testCase.emailVerified)
        expect(profile.data).toEqual(testCase.data(fake))
        expect(profile.tokens === undefined ? undefined : Redacted.value(profile.tokens.accessToken)).toBe(
          providerTokens(testCase).access
        )
        expect(Option.map(profile.tokens?.refreshToken ?? Option.none(), Redacted.value)).toEqual(
          Option.fromNullable(providerTokens(testCase).refresh)
        )

        const [token] = fake.sent(`POST ${testCase.token}`)
        expect(token?.form.get("grant_type")).toBe("authorization_code")
        expect(token?.form.get("code")).toBe(`code-${testCase.name}`)
        expect(token?.form.get("redirect_uri")).toBe(redirectUri)
        expect(token?.form.get("code_verifier")).toBe(traits.pkce ? request.codeVerifier : null)
        if (testCase.auth === "basic") {
          expect(token?.headers.authorization).toBe(basic)
          expect(token?.form.has("client_secret")).toBe(false)
        } else {
          expect(token?.form.get("client_id")).toBe(clientId)
          expect(token?.form.get("client_secret")).not.toBeNull()
          expect(token?.headers.authorization).toBeUndefined()
        }
        for (const call of fake.requests.filter(
          (request) => request.method === "GET" && !request.path.includes(".well-known")
        )) {
          expect(call.headers.authorization).toBe(`Bearer ${providerTokens(testCase).access}`)
        }
      })
    )
  }

  const errorCases: ReadonlyArray<{
    readonly name: ProviderCatalog.ExternalProviderName
    readonly reply: FakeProvider.Reply
    readonly code: string
  }> = [
    // RFC 6749 §5.2, as Google, Spotify and most answer.
    {
      name: "google",
      reply: { status: 400, json: { error: "invalid_grant", error_description: "Bad Request" } },
      code: "invalid_grant"
    },
    // GitHub answers a bad code with HTTP 200 and an error body.
    {
      name: "github",
      reply: {
        json: {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired."
        }
      },
      code: "bad_verification_code"
    },
    // Slack: HTTP 200, `ok: false`.
    { name: "slack", reply: { json: { ok: false, error: "invalid_code" } }, code: "invalid_code" },
    // Facebook: an error object.
    {
      name: "facebook",
      reply: {
        status: 400,
        json: {
          error: {
            message: "This authorization code has expired.",
            type: "OAuthException",
            code: 100,
            fbtrace_id: "A1"
          }
        }
      },
      code: "OAuthException"
    },
    {
      name: "spotify",
      reply: { status: 400, json: { error: "invalid_client", error_description: "Invalid client" } },
      code: "invalid_client"
    }
  ]
  for (const { name, reply, code } of errorCases) {
    it.scoped(
      `${name}: a token endpoint error is a login failure whose message names the error, never the code`,
      () =>
        Effect.gen(function* () {
          const testCase = cases.find((candidate) => candidate.name === name)
          if (testCase === undefined) throw new Error(`no case for ${name}`)
          const { fake, setAuthorization } = yield* fakeFor(testCase, () => reply)
          const upstream = yield* ProviderCatalog.build(name, yield* credentialsFor(testCase, fake))
          const request = newRequest()
          setAuthorization(yield* upstream.authorizationUrl(request))
          const callback = new URL(redirectUri)
          callback.searchParams.set("code", "secret-code-value")
          callback.searchParams.set("state", request.state)
          const error = yield* Effect.flip(upstream.exchange(callback, request))
          expect(error).toBeInstanceOf(UpstreamLoginFailed)
          expect(error.message).toContain(`Login at ${name} failed`)
          expect(error.message).toContain(`"${code}"`)
          expect(error.message).not.toContain("secret-code-value")
          expect(error.message).not.toContain(clientSecret)
          expect(error.message).not.toContain("expired")
        })
    )
  }

  it.scoped("an API error after the exchange is a login failure naming the status only", () =>
    Effect.gen(function* () {
      const testCase = cases.find((candidate) => candidate.name === "discord")
      if (testCase === undefined) throw new Error("no discord case")
      const { fake, setAuthorization } = yield* fakeFor(testCase)
      fake.routes.set("GET /api/users/@me", () => ({
        status: 401,
        json: { message: "401: Unauthorized", code: 0 }
      }))
      const upstream = yield* ProviderCatalog.build("discord", yield* credentialsFor(testCase, fake))
      const request = newRequest()
      setAuthorization(yield* upstream.authorizationUrl(request))
      const callback = new URL(redirectUri)
      callback.searchParams.set("code", "c")
      callback.searchParams.set("state", request.state)
      const error = yield* Effect.flip(upstream.exchange(callback, request))
      expect(error.message).toBe("Reading /api/users/@me from discord failed: HTTP 401")
    })
  )

  it.scoped("a callback with another state is refused before any token request", () =>
    Effect.gen(function* () {
      const testCase = cases.find((candidate) => candidate.name === "gitlab")
      if (testCase === undefined) throw new Error("no gitlab case")
      const { fake, setAuthorization } = yield* fakeFor(testCase)
      const upstream = yield* ProviderCatalog.build("gitlab", yield* credentialsFor(testCase, fake))
      const request = newRequest()
      setAuthorization(yield* upstream.authorizationUrl(request))
      const callback = new URL(redirectUri)
      callback.searchParams.set("code", "c")
      callback.searchParams.set("state", client.randomState())
      const error = yield* Effect.flip(upstream.exchange(callback, request))
      expect(error.message).toMatch(/state/)
      expect(fake.sent("POST /oauth/token")).toHaveLength(0)
    })
  )

  it.scoped(
    "a provider at a private address, or at loopback off the allow-list, is refused uncontacted",
    () =>
      Effect.gen(function* () {
        const testCase = cases.find((candidate) => candidate.name === "gitlab")
        if (testCase === undefined) throw new Error("no gitlab case")
        const { fake } = yield* fakeFor(testCase)
        const base = { clientId, clientSecret: Redacted.make(clientSecret) }
        // The fake itself, not allow-listed; and a private address, refused before any connection.
        for (const endpointOrigin of [fake.origin, new URL("https://10.0.0.1")]) {
          const upstream = yield* ProviderCatalog.build("gitlab", { ...base, endpointOrigin })
          const request = newRequest()
          yield* upstream.authorizationUrl(request)
          const callback = new URL(redirectUri)
          callback.searchParams.set("code", "c")
          callback.searchParams.set("state", request.state)
          const error = yield* Effect.flip(upstream.exchange(callback, request))
          expect(error).toBeInstanceOf(UpstreamLoginFailed)
          expect(error.message).toMatch(/^Login at gitlab failed: the outbound guard refused the call/)
        }
        // Discovery goes through the guard as well.
        const oidc = yield* ProviderCatalog.build("oidc", { ...base, issuerUrl: fake.origin })
        const error = yield* Effect.flip(oidc.authorizationUrl(newRequest()))
        expect(error).toBeInstanceOf(UpstreamLoginFailed)
        expect(error.message).toMatch(/the outbound guard refused the call/)
        expect(fake.requests).toHaveLength(0)
      })
  )
})

describe("provider configuration", () => {
  const base = { clientId, clientSecret: Redacted.make(clientSecret) }

  it.effect("keycloak needs its realm URL; gitlab defaults to gitlab.com; azure to the common tenant", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(ProviderCatalog.build("keycloak", base))
      expect(error.message).toMatch(/realm URL/)
      const gitlab = yield* ProviderCatalog.build("gitlab", base)
      const url = yield* gitlab.authorizationUrl(newRequest())
      expect(`${url.origin}${url.pathname}`).toBe("https://gitlab.com/oauth/authorize")
      expect(ProviderCatalog.traits("keycloak").url).toBe("required")
      expect(ProviderCatalog.traits("gitlab").url).toBe("optional")
      expect(ProviderCatalog.traits("azure").url).toBe("optional")
      expect(ProviderCatalog.traits("workos").url).toBe("optional")
    })
  )

  it.effect(
    "an instance URL in plain http is taken, as Supabase Auth takes it; another scheme is refused",
    () =>
      Effect.gen(function* () {
        // The outbound guard decides at each call whether plain http may go there.
        const gitlab = yield* ProviderCatalog.build("gitlab", {
          ...base,
          issuerUrl: new URL("http://gitlab.internal.example")
        })
        const url = yield* gitlab.authorizationUrl(newRequest())
        expect(`${url.origin}${url.pathname}`).toBe("http://gitlab.internal.example/oauth/authorize")
        const error = yield* Effect.flip(
          ProviderCatalog.build("gitlab", { ...base, issuerUrl: new URL("ftp://gitlab.internal.example") })
        )
        expect(error.message).toMatch(/must be an http or https URL/)
      })
  )

  it.effect(
    "apple builds with any secret, as Supabase Auth does, and tells a client secret JWT made for this client",
    () =>
      Effect.gen(function* () {
        const built = yield* ProviderCatalog.build("apple", base)
        const url = yield* built.authorizationUrl(newRequest())
        expect(url.origin).toBe("https://appleid.apple.com")
        const { privateKey } = yield* Effect.promise(() => generateKeyPair("ES256"))
        const signedFor = (subject: string) =>
          Effect.promise(() =>
            new SignJWT({}).setProtectedHeader({ alg: "ES256" }).setSubject(subject).sign(privateKey)
          )
        expect(Apple.isClientSecretFor(clientId, Redacted.make(yield* signedFor(clientId)))).toBe(true)
        expect(Apple.isClientSecretFor(clientId, Redacted.make(yield* signedFor("another.client")))).toBe(
          false
        )
        expect(Apple.isClientSecretFor(clientId, base.clientSecret)).toBe(false)
        const hs256 = yield* Effect.promise(() =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(clientId).sign(new Uint8Array(32))
        )
        expect(Apple.isClientSecretFor(clientId, Redacted.make(hs256))).toBe(false)
      })
  )

  it("knows the twenty-four provider keys and oidc by the name recorded on identities", () => {
    for (const name of [...ProviderCatalog.ExternalProviderName.literals, "oidc"]) {
      expect(Option.map(ProviderCatalog.find(name), (entry) => entry.name)).toEqual(Option.some(name))
    }
    // The spec's eighteen, Supabase Auth's keys for the LinkedIn and Slack sign-ins, and its
    // fly, kakao, x and zoom.
    expect(ProviderCatalog.ExternalProviderName.literals).toHaveLength(24)
    expect(ProviderCatalog.find("myspace")).toEqual(Option.none())
    expect(ProviderCatalog.find("toString")).toEqual(Option.none())
    expect(ProviderCatalog.traits("workos").parameters).toMatchObject({ workos_provider: "provider" })
  })
})
