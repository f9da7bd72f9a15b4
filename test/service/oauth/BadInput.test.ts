import { request } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../support/InProcessOAuth.js"

const redirectUri = "http://127.0.0.1:41000/callback"

/** Asserts an RFC 6749 §5.2 error: the status, the code, a description, and no caching. */
const expectError = async (response: Response, status: number, error: string) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toContain("application/json")
  expect(response.headers.get("cache-control")).toBe("no-store")
  const body = await Browser.errorOf(response)
  expect(body.error).toBe(error)
  expect(body.error_description.length).toBeGreaterThan(0)
  return body
}

/**
 * A form body sent chunked, without a declared length: the server can only notice its size
 * while reading. Resolves with the status and the JSON body, or with the error that ended the
 * connection once the answer was given.
 */
const chunkedUpload = (baseUrl: string, path: string, chunks: number, chunkBytes: number) =>
  new Promise<{ status: number; body: { error?: string } }>((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" }
    })
    req.on("response", (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (piece: string) => {
        text += piece
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      res.on("error", reject)
    })
    // The server closes the connection after refusing; later writes may fail, which is expected.
    req.on("error", () => {})
    req.write("grant_type=refresh_token&client_id=cli&padding=")
    const piece = "x".repeat(chunkBytes)
    for (let i = 0; i < chunks; i++) req.write(piece)
    req.end()
  })

/** A fresh code for the built-in CLI client, with its verifier. */
const codeFor = (baseUrl: string) => Browser.codeFor(baseUrl, "cli", redirectUri)

const exchange = (baseUrl: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  Browser.exchange(baseUrl, "cli", redirectUri, { code, verifier }, extra)

describe("bad input gets a spec-shaped error, never a 500", () => {
  it.live(
    "at /token, /revoke, /introspect and /register",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start({
          // Fixed windows start at multiples of their length since the epoch: an hourly one
          // could roll over between the first registration below and the sixth and reset the
          // count. This one's first boundary after the epoch is nearly a thousand years away.
          configure: (config) => ({
            ...config,
            registerRateLimit: { max: 5, window: Duration.days(365_000) }
          })
        })
        yield* Effect.promise(async () => {
          // Missing parameters.
          await expectError(await Browser.form(baseUrl, "/token", {}), 400, "invalid_request")
          await expectError(
            await Browser.form(baseUrl, "/token", { grant_type: "authorization_code", client_id: "cli" }),
            400,
            "invalid_request"
          )
          await expectError(
            await Browser.form(baseUrl, "/revoke", { client_id: "cli" }),
            400,
            "invalid_request"
          )

          // Duplicated parameters.
          const duplicated = await fetch(`${baseUrl}/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "grant_type=refresh_token&grant_type=authorization_code&client_id=cli"
          })
          expect((await expectError(duplicated, 400, "invalid_request")).error_description).toContain(
            "grant_type"
          )

          // Wrong content type.
          const json = await fetch(`${baseUrl}/token`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ grant_type: "refresh_token" })
          })
          await expectError(json, 400, "invalid_request")
          const formToRegister = await Browser.form(baseUrl, "/register", {
            redirect_uris: "https://a.example/cb"
          })
          await expectError(formToRegister, 400, "invalid_request")

          // Oversized body.
          const huge = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            padding: "x".repeat(200_000)
          })
          await expectError(huge, 413, "invalid_request")
          const chunked = await chunkedUpload(baseUrl, "/token", 20, 8 * 1024)
          expect(chunked.status).toBe(413)
          expect(chunked.body.error).toBe("invalid_request")
          // Just under the limit is read and judged on its content.
          const underLimit = await chunkedUpload(baseUrl, "/token", 7, 8 * 1024)
          expect(underLimit.status).toBe(400)
          expect(underLimit.body.error).toBe("invalid_request")

          // Malformed percent-encoding is read as literal text, not a failure.
          const malformed = await fetch(`${baseUrl}/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "grant_type=refresh_token&client_id=cli&refresh_token=%E0%A4%A"
          })
          await expectError(malformed, 400, "invalid_grant")

          // Unknown grant type and unknown client.
          await expectError(
            await Browser.form(baseUrl, "/token", { grant_type: "password", client_id: "cli" }),
            400,
            "unsupported_grant_type"
          )
          const unknownClient = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: "nobody",
            refresh_token: "lkr_x"
          })
          await expectError(unknownClient, 401, "invalid_client")
          expect(unknownClient.headers.get("www-authenticate")).toContain("Basic")

          // Client assertions: beside a secret, of another type, without a type, not a JWT, naming
          // another client, or presented by a client that publishes no keys.
          const jwtType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
          const unsignedJwt = (sub: string) =>
            `${Buffer.from('{"alg":"ES256"}').toString("base64url")}.${Buffer.from(
              JSON.stringify({ iss: sub, sub, aud: baseUrl, exp: 4102444800, jti: "j" })
            ).toString("base64url")}.c2ln`
          const refreshWith = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
            Browser.form(
              baseUrl,
              "/token",
              { grant_type: "refresh_token", refresh_token: "lkr_x", ...fields },
              headers
            )
          await expectError(
            await refreshWith(
              { client_assertion_type: jwtType, client_assertion: unsignedJwt("cli") },
              { authorization: `Basic ${Buffer.from("cli:secret").toString("base64")}` }
            ),
            400,
            "invalid_request"
          )
          await expectError(
            await refreshWith({
              client_assertion_type: "urn:example:saml",
              client_assertion: unsignedJwt("cli")
            }),
            401,
            "invalid_client"
          )
          await expectError(
            await refreshWith({ client_assertion: unsignedJwt("cli") }),
            400,
            "invalid_request"
          )
          await expectError(
            await refreshWith({ client_assertion_type: jwtType, client_assertion: "not-a-jwt" }),
            401,
            "invalid_client"
          )
          await expectError(
            await refreshWith({
              client_id: "other",
              client_assertion_type: jwtType,
              client_assertion: unsignedJwt("cli")
            }),
            401,
            "invalid_client"
          )
          const keyless = await refreshWith({
            client_assertion_type: jwtType,
            client_assertion: unsignedJwt("cli")
          })
          await expectError(keyless, 401, "invalid_client")

          // Wrong, used and mismatched codes.
          await expectError(await exchange(baseUrl, "lkc_not-a-code", "v".repeat(43)), 400, "invalid_grant")
          const first = await codeFor(baseUrl)
          expect((await exchange(baseUrl, first.code, first.verifier)).status).toBe(200)
          await expectError(await exchange(baseUrl, first.code, first.verifier), 400, "invalid_grant")
          const mismatch = await codeFor(baseUrl)
          await expectError(
            await exchange(baseUrl, mismatch.code, Browser.pkce().verifier),
            400,
            "invalid_grant"
          )
          const redirect = await codeFor(baseUrl)
          await expectError(
            await exchange(baseUrl, redirect.code, redirect.verifier, {
              redirect_uri: "http://127.0.0.1:41000/other"
            }),
            400,
            "invalid_grant"
          )
          const noVerifier = await codeFor(baseUrl)
          await expectError(
            await Browser.form(baseUrl, "/token", {
              grant_type: "authorization_code",
              code: noVerifier.code,
              redirect_uri: redirectUri,
              client_id: "cli"
            }),
            400,
            "invalid_grant"
          )

          // Revoked and foreign refresh tokens.
          const granted = await codeFor(baseUrl)
          const tokens = await Browser.tokensOf(await exchange(baseUrl, granted.code, granted.verifier))
          const other = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          await expectError(
            await Browser.form(baseUrl, "/token", {
              grant_type: "refresh_token",
              client_id: other,
              refresh_token: tokens.refresh_token ?? ""
            }),
            400,
            "invalid_grant"
          )
          expect(
            (await Browser.form(baseUrl, "/revoke", { token: tokens.refresh_token ?? "", client_id: "cli" }))
              .status
          ).toBe(200)
          await expectError(
            await Browser.form(baseUrl, "/token", {
              grant_type: "refresh_token",
              client_id: "cli",
              refresh_token: tokens.refresh_token ?? ""
            }),
            400,
            "invalid_grant"
          )
          expect(
            (await Browser.form(baseUrl, "/revoke", { token: "lka_unknown", client_id: "cli" })).status
          ).toBe(200)

          // Introspection secret missing or wrong.
          await expectError(await Browser.form(baseUrl, "/introspect", { token: "x" }), 401, "invalid_client")
          await expectError(
            await Browser.form(baseUrl, "/introspect", { token: "x" }, { authorization: "Bearer wrong" }),
            401,
            "invalid_client"
          )

          // Registration: malformed JSON, bad metadata, bad redirect URIs, then the rate limit.
          const register = (body: string) =>
            fetch(`${baseUrl}/register`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body
            })
          await expectError(await register("{not json"), 400, "invalid_request")
          await expectError(await register(JSON.stringify({ client_name: "x" })), 400, "invalid_redirect_uri")
          await expectError(
            await register(JSON.stringify({ redirect_uris: ["http://evil.example/cb"] })),
            400,
            "invalid_redirect_uri"
          )
          await expectError(
            await register(JSON.stringify({ redirect_uris: ["https://a.example/cb#frag"] })),
            400,
            "invalid_redirect_uri"
          )
          await expectError(
            await register(
              JSON.stringify({
                redirect_uris: ["https://a.example/cb"],
                token_endpoint_auth_method: "client_secret_basic"
              })
            ),
            400,
            "invalid_client_metadata"
          )
          const limited = await register(JSON.stringify({ redirect_uris: ["https://a.example/cb"] }))
          const body = await expectError(limited, 429, "slow_down")
          expect(body.error_description).toContain("too many")
          expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
        })
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.live(
    "at the authorize endpoint: an error page for untrusted clients, a redirect for the rest",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        yield* Effect.promise(async () => {
          const page = await fetch(
            Browser.authorizeUrl(baseUrl, {
              client_id: "nobody",
              redirect_uri: redirectUri,
              response_type: "code"
            }),
            { redirect: "manual" }
          )
          expect(page.status).toBe(400)
          expect(page.headers.get("location")).toBeNull()
          expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
          expect(await page.text()).toContain("invalid_client")

          const foreign = await fetch(
            Browser.authorizeUrl(baseUrl, {
              client_id: "cli",
              redirect_uri: "https://evil.example/cb",
              response_type: "code"
            }),
            { redirect: "manual" }
          )
          expect(foreign.status).toBe(400)
          expect(foreign.headers.get("location")).toBeNull()

          const duplicated = await fetch(`${baseUrl}/?client_id=cli&client_id=other&response_type=code`, {
            redirect: "manual"
          })
          expect(duplicated.status).toBe(400)

          const plain = await fetch(
            Browser.authorizeUrl(baseUrl, {
              client_id: "cli",
              redirect_uri: redirectUri,
              response_type: "code",
              code_challenge: "x".repeat(43),
              code_challenge_method: "plain",
              state: "st"
            }),
            { redirect: "manual" }
          )
          expect(plain.status).toBe(302)
          const location = new URL(plain.headers.get("location") ?? "")
          expect(location.searchParams.get("error")).toBe("invalid_request")
          expect(location.searchParams.get("state")).toBe("st")
          expect(location.searchParams.get("iss")).toBe(baseUrl)

          const badState = await fetch(`${baseUrl}/callback?state=lkt_forged&code=x`, { redirect: "manual" })
          expect(badState.status).toBe(400)

          const unknown = await fetch(`${baseUrl}/nowhere`)
          expect(unknown.status).toBe(404)
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
