import { createServer } from "node:http"
import { describe, expect, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as client from "openid-client"
import * as DevUpstream from "../../../adapters/idp/DevUpstream.js"
import * as ProviderCatalog from "../../../adapters/idp/ProviderCatalog.js"
import {
  UpstreamLoginFailed,
  type UpstreamRequest
} from "../../../application/ports/UpstreamIdentityProvider.js"
import { freePort } from "../../support/FreePort.js"
import { loginThroughForm } from "../../support/oauth/DevUpstreamLogin.js"
import * as Allowed from "../../support/outbound/Allowed.js"

// Never requested: the login stops at the redirect to it. Any port other than the upstream's.
const redirectUri = "http://127.0.0.1:5999/callback"
const clientId = "latchkey-test"
const clientSecret = "dev-upstream-test-secret"

const devClient = { client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] }

class Upstream extends Context.Tag("test/DevUpstream")<Upstream, DevUpstream.DevUpstream>() {}

const startUpstream = (options: Partial<DevUpstream.StartOptions> = {}) =>
  DevUpstream.start({ host: "127.0.0.1", clients: [devClient], ...options })

const newRequest = (): UpstreamRequest => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
  redirectUri
})

const oidcAt = (issuerUrl: URL) =>
  ProviderCatalog.build("oidc", {
    clientId,
    clientSecret: Redacted.make(clientSecret),
    issuerUrl,
    allowedPrivateAddresses: Allowed.localhost
  })

/** Logs `email` in at the upstream and returns the callback URL and the request it answers. */
const login = (issuer: URL, email: string) =>
  Effect.gen(function* () {
    const upstream = yield* oidcAt(issuer)
    const request = newRequest()
    const authorizationUrl = yield* upstream.authorizationUrl(request)
    const callbackUrl = yield* Effect.promise(() => loginThroughForm(authorizationUrl, email))
    return { upstream, request, authorizationUrl, callbackUrl }
  })

layer(Layer.scoped(Upstream, startUpstream()))("oidc provider against the dev upstream", (it) => {
  it.effect("logs a user in: authorization URL, login form, code exchange, profile", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const { upstream, request, authorizationUrl, callbackUrl } = yield* login(issuer, "Alice@Example.com")

      expect(authorizationUrl.origin).toBe(issuer.origin)
      const sent = authorizationUrl.searchParams
      expect(sent.get("client_id")).toBe(clientId)
      expect(sent.get("redirect_uri")).toBe(redirectUri)
      expect(sent.get("response_type")).toBe("code")
      expect(sent.get("scope")).toBe("openid email profile")
      expect(sent.get("state")).toBe(request.state)
      expect(sent.get("nonce")).toBe(request.nonce)
      expect(sent.get("code_challenge_method")).toBe("S256")
      expect(sent.get("code_challenge")).toBe(
        yield* Effect.promise(() => client.calculatePKCECodeChallenge(request.codeVerifier))
      )

      expect(`${callbackUrl.origin}${callbackUrl.pathname}`).toBe(redirectUri)
      expect(callbackUrl.searchParams.get("state")).toBe(request.state)
      expect(callbackUrl.searchParams.get("iss")).toBe(issuer.origin)
      expect(callbackUrl.searchParams.get("code")).toMatch(/.+/)

      const profile = yield* upstream.exchange(callbackUrl, request)
      expect(upstream.name).toBe("oidc")
      expect(profile.provider).toBe("oidc")
      expect(profile.subject).toBe(DevUpstream.subjectOf("alice@example.com"))
      expect(profile.email).toEqual(Option.some("Alice@Example.com"))
      expect(profile.emailVerified).toBe(true)
      expect(profile.data).toMatchObject({
        iss: issuer.origin,
        sub: profile.subject,
        name: "Alice",
        email: "Alice@Example.com",
        email_verified: true
      })
    })
  )

  it.effect("the same email is the same subject, another email another one", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const subjectFor = (email: string) =>
        Effect.flatMap(login(issuer, email), ({ upstream, request, callbackUrl }) =>
          Effect.map(upstream.exchange(callbackUrl, request), (profile) => profile.subject)
        )
      const first = yield* subjectFor("bob@example.com")
      expect(yield* subjectFor("bob@example.com")).toBe(first)
      expect(yield* subjectFor("carol@example.com")).not.toBe(first)
    })
  )

  it.effect("a callback with another state is refused", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const { upstream, request, callbackUrl } = yield* login(issuer, "dave@example.com")
      const error = yield* Effect.flip(
        upstream.exchange(callbackUrl, { ...request, state: client.randomState() })
      )
      expect(error).toBeInstanceOf(UpstreamLoginFailed)
      expect(error.message).toMatch(/state/)
    })
  )

  it.effect("an ID token with another nonce is refused", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const { upstream, request, callbackUrl } = yield* login(issuer, "erin@example.com")
      const error = yield* Effect.flip(
        upstream.exchange(callbackUrl, { ...request, nonce: client.randomNonce() })
      )
      expect(error).toBeInstanceOf(UpstreamLoginFailed)
      expect(error.message).toMatch(/nonce/)
    })
  )

  it.effect("a code redeemed with another PKCE verifier is refused, and the message holds no code", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const { upstream, request, callbackUrl } = yield* login(issuer, "frank@example.com")
      const error = yield* Effect.flip(
        upstream.exchange(callbackUrl, { ...request, codeVerifier: client.randomPKCECodeVerifier() })
      )
      expect(error).toBeInstanceOf(UpstreamLoginFailed)
      expect(error.message).toMatch(/invalid_grant/)
      // Refused, not unavailable: trying again would not help.
      expect(error.unavailable).toBe(false)
      const code = callbackUrl.searchParams.get("code") ?? "no code"
      expect(error.message).not.toContain(code)
    })
  )

  it.effect("an upstream error in the callback (access_denied) is refused", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const upstream = yield* oidcAt(issuer)
      const request = newRequest()
      const callbackUrl = new URL(redirectUri)
      callbackUrl.search = new URLSearchParams({
        error: "access_denied",
        error_description: "The user said <b>no</b>",
        state: request.state,
        iss: issuer.origin
      }).toString()
      const error = yield* Effect.flip(upstream.exchange(callbackUrl, request))
      expect(error).toBeInstanceOf(UpstreamLoginFailed)
      expect(error.message).toContain('"access_denied"')
      expect(error.unavailable).toBe(false)
      expect(error.message).not.toContain("<b>")
    })
  )

  it.effect("the dev upstream requires PKCE", () =>
    Effect.gen(function* () {
      const { issuer } = yield* Upstream
      const authorize = new URL("/auth", issuer)
      authorize.search = new URLSearchParams({
        client_id: clientId,
        response_type: "code",
        scope: "openid",
        redirect_uri: redirectUri,
        state: "s"
      }).toString()
      const response = yield* Effect.promise(() => fetch(authorize, { redirect: "manual" }))
      const location = new URL(response.headers.get("location") ?? "", issuer)
      expect(`${location.origin}${location.pathname}`).toBe(redirectUri)
      expect(location.searchParams.get("error")).toBe("invalid_request")
      expect(location.searchParams.get("error_description")).toMatch(/PKCE/)
    })
  )
})

describe("oidc provider", () => {
  it.effect(
    "takes a plain-http issuer when built, as Supabase Auth does; the guard refuses it at the first call",
    () =>
      Effect.gen(function* () {
        // No private address allowed: the first call (discovery) is refused, naming no secret.
        const upstream = yield* ProviderCatalog.build("oidc", {
          clientId,
          clientSecret: Redacted.make(clientSecret),
          issuerUrl: new URL("http://idp.example.com/realms/main")
        })
        const error = yield* Effect.flip(upstream.authorizationUrl(newRequest()))
        expect(error).toBeInstanceOf(UpstreamLoginFailed)
        expect(error.message).not.toContain(clientSecret)
        // Another scheme cannot be called at all: refused when built.
        const ftp = yield* Effect.flip(
          ProviderCatalog.build("oidc", {
            clientId,
            clientSecret: Redacted.make(clientSecret),
            issuerUrl: new URL("ftp://idp.example.com/realms/main")
          })
        )
        expect(ftp.message).toContain("must be an http or https URL")
        // With private addresses allowed, the guard decides at each call, by address.
        const allowed = yield* oidcAt(new URL("http://keycloak.internal:8080/realms/acme"))
        expect(allowed.name).toBe("oidc")
      })
  )

  it.effect("accepts https and loopback http issuers without contacting them (discovery is lazy)", () =>
    Effect.gen(function* () {
      for (const issuer of [
        "https://idp.example.com",
        "http://127.0.0.1:1",
        "http://[::1]:1",
        "http://localhost:1"
      ]) {
        const upstream = yield* oidcAt(new URL(issuer))
        expect(upstream.name).toBe("oidc")
      }
    })
  )

  it.effect("needs an issuer", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ProviderCatalog.build("oidc", { clientId, clientSecret: Redacted.make(clientSecret) })
      )
      expect(error.message).toContain("needs an issuer URL")
    })
  )

  it.effect("a failed discovery is an UpstreamLoginFailed, and is tried again on the next login", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const upstream = yield* oidcAt(new URL(`http://127.0.0.1:${port}`))
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = yield* Effect.flip(upstream.authorizationUrl(newRequest()))
        expect(error).toBeInstanceOf(UpstreamLoginFailed)
        expect(error.message).toContain(`Discovery of the oidc provider at http://127.0.0.1:${port}/ failed`)
        expect(error.message).toContain("ECONNREFUSED")
        // Unreachable: the login may work when tried again.
        expect(error.unavailable).toBe(true)
      }
    })
  )

  it.scoped("a token endpoint behind a proxy answering an HTML 503 is an outage, not a refusal", () =>
    Effect.gen(function* () {
      // An issuer whose discovery works and whose token endpoint is down behind its proxy.
      let origin = ""
      const server = createServer((request, response) => {
        if (request.url === "/.well-known/openid-configuration") {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(
            JSON.stringify({
              issuer: origin,
              authorization_endpoint: `${origin}/auth`,
              token_endpoint: `${origin}/token`,
              jwks_uri: `${origin}/jwks`,
              response_types_supported: ["code"]
            })
          )
          return
        }
        response.writeHead(503, { "content-type": "text/html" })
        response.end("<html><body><h1>503 Service Unavailable</h1></body></html>")
      })
      const port = yield* freePort
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          server.listen(port, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      origin = `http://127.0.0.1:${port}`
      const issuer = new URL(origin)
      const upstream = yield* oidcAt(issuer)
      const request = newRequest()
      yield* upstream.authorizationUrl(request)
      const callbackUrl = new URL(redirectUri)
      callbackUrl.search = new URLSearchParams({ code: "a-code", state: request.state }).toString()
      const error = yield* Effect.flip(upstream.exchange(callbackUrl, request))
      expect(error).toBeInstanceOf(UpstreamLoginFailed)
      expect(error.unavailable).toBe(true)
      expect(error.message).not.toContain("Service Unavailable")
    })
  )

  it.effect("discovers once: after the upstream is gone, authorization URLs are still built", () =>
    Effect.gen(function* () {
      const upstream = yield* Effect.scoped(
        Effect.gen(function* () {
          const { issuer } = yield* startUpstream()
          const upstream = yield* oidcAt(issuer)
          yield* upstream.authorizationUrl(newRequest())
          return upstream
        })
      )
      const url = yield* upstream.authorizationUrl(newRequest())
      expect(url.pathname).toBe("/auth")
    })
  )

  it.scoped("reads the email from userinfo when the ID token does not carry it", () =>
    Effect.gen(function* () {
      const { issuer } = yield* startUpstream({ conformIdTokenClaims: true })
      const { upstream, request, callbackUrl } = yield* login(issuer, "grace@example.com")
      const profile = yield* upstream.exchange(callbackUrl, request)
      expect(profile.subject).toBe(DevUpstream.subjectOf("grace@example.com"))
      expect(profile.email).toEqual(Option.some("grace@example.com"))
      expect(profile.emailVerified).toBe(true)
      expect(profile.data).toMatchObject({ name: "grace" })
    })
  )
})

describe("DevUpstream", () => {
  it.effect("refuses to bind anything but 127.0.0.1", () =>
    Effect.gen(function* () {
      // As a JavaScript caller or a configuration file could, past the type.
      const options: DevUpstream.StartOptions = JSON.parse('{"host":"0.0.0.0","clients":[]}')
      const error = yield* Effect.flip(Effect.scoped(DevUpstream.start(options)))
      expect(error.message).toContain("127.0.0.1")
    })
  )

  it.effect("stops listening when its scope closes", () =>
    Effect.gen(function* () {
      const issuer = yield* Effect.scoped(Effect.map(startUpstream(), (started) => started.issuer))
      const reached = yield* Effect.promise(() =>
        fetch(new URL("/.well-known/openid-configuration", issuer)).then(
          () => true,
          () => false
        )
      )
      expect(reached).toBe(false)
    })
  )
})
