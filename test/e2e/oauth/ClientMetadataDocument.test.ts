import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import * as client from "openid-client"
import * as DocumentServer from "../../support/oauth/DocumentServer.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

describe("a public client identified by its Client ID Metadata Document, over HTTP", () => {
  it.live(
    "authorizes with the document URL as client_id, logs in upstream and exchanges the code",
    () =>
      Effect.gen(function* () {
        const documents = yield* DocumentServer.start({
          "/oauth/client.json": DocumentServer.json((origin) => ({
            client_id: `${origin}/oauth/client.json`,
            client_name: "e2e MCP client",
            redirect_uris: ["http://127.0.0.1/callback"],
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"]
          }))
        })
        const clientId = `${documents.origin}/oauth/client.json`
        const { baseUrl } = yield* Server.startReaching(documents)
        yield* Effect.promise(async () => {
          const metadata = await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()
          expect(metadata).toMatchObject({ client_id_metadata_document_supported: true })

          const redirectUri = "http://127.0.0.1:53682/callback"
          const { verifier, challenge } = Browser.pkce()
          const back = await Browser.login(
            Browser.authorizeUrl(baseUrl, {
              client_id: clientId,
              redirect_uri: redirectUri,
              response_type: "code",
              code_challenge: challenge,
              code_challenge_method: "S256",
              state: "xyz"
            })
          )
          expect(`${back.origin}${back.pathname}`).toBe(redirectUri)
          expect(back.searchParams.get("state")).toBe("xyz")
          const exchanged = await Browser.form(baseUrl, "/token", {
            grant_type: "authorization_code",
            code: back.searchParams.get("code") ?? "",
            redirect_uri: redirectUri,
            client_id: clientId,
            code_verifier: verifier
          })
          expect(exchanged.status).toBe(200)
          const tokens = await Browser.tokensOf(exchanged)
          expect(tokens.token_type).toBe("Bearer")
          expect(tokens.refresh_token).toMatch(/^lkr_/)

          const info = await Browser.form(
            baseUrl,
            "/introspect",
            { token: tokens.access_token },
            { authorization: `Bearer ${Server.introspectionToken}` }
          ).then((r) => r.json())
          expect(info).toMatchObject({ active: true, client_id: clientId })

          const refreshed = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: clientId,
            refresh_token: tokens.refresh_token ?? ""
          })
          expect(refreshed.status).toBe(200)
        })
        // Authorize and two token requests, one fetch: the document was cached (5 minutes by default).
        expect(documents.hits("/oauth/client.json")).toBe(1)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "refuses a document URL that cannot be fetched: an error page at authorize, invalid_client at /token",
    () =>
      Effect.gen(function* () {
        const documents = yield* DocumentServer.start({})
        const { baseUrl } = yield* Server.startReaching(documents)
        const clientId = `${documents.origin}/missing.json`
        yield* Effect.promise(async () => {
          const authorize = await fetch(
            Browser.authorizeUrl(baseUrl, {
              client_id: clientId,
              redirect_uri: "http://127.0.0.1:53682/callback",
              response_type: "code",
              code_challenge: Browser.pkce().challenge,
              code_challenge_method: "S256"
            }),
            { redirect: "manual" }
          )
          expect(authorize.status).toBe(400)
          expect(authorize.headers.get("location")).toBeNull()
          const token = await Browser.form(baseUrl, "/token", {
            grant_type: "authorization_code",
            code: "lkc_nothing",
            redirect_uri: "http://127.0.0.1:53682/callback",
            client_id: clientId,
            code_verifier: "a".repeat(43)
          })
          expect(token.status).toBe(401)
          expect(await Browser.errorOf(token)).toMatchObject({ error: "invalid_client" })
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "keeps its users signed in while the document's host is down, not once it answers that it is gone",
    () =>
      Effect.gen(function* () {
        const publisher = { state: "up" as "up" | "down" | "gone" }
        const document = DocumentServer.json(
          (origin) => ({
            client_id: `${origin}/oauth/client.json`,
            client_name: "e2e MCP client",
            redirect_uris: ["http://127.0.0.1/callback"],
            token_endpoint_auth_method: "none"
          }),
          // Never cached: every request of the client fetches it again.
          { "cache-control": "no-store" }
        )
        const documents = yield* DocumentServer.start({
          "/oauth/client.json": (request, response, origin) => {
            if (publisher.state === "up") return document(request, response, origin)
            response.writeHead(publisher.state === "down" ? 503 : 404).end()
          }
        })
        const clientId = `${documents.origin}/oauth/client.json`
        const { baseUrl } = yield* Server.startReaching(documents)
        yield* Effect.promise(async () => {
          const redirectUri = "http://127.0.0.1:53682/callback"
          const grant = await Browser.codeFor(baseUrl, clientId, redirectUri)
          const first = await Browser.tokensOf(await Browser.exchange(baseUrl, clientId, redirectUri, grant))
          const refresh = (token: string) =>
            Browser.form(baseUrl, "/token", {
              grant_type: "refresh_token",
              client_id: clientId,
              refresh_token: token
            })

          publisher.state = "down"
          const duringOutage = await refresh(first.refresh_token ?? "")
          expect(duringOutage.status).toBe(200)
          const second = await Browser.tokensOf(duringOutage)

          publisher.state = "gone"
          const afterRemoval = await refresh(second.refresh_token ?? "")
          expect(afterRemoval.status).toBe(401)
          expect((await Browser.errorOf(afterRemoval)).error).toBe("invalid_client")
        })
        expect(documents.hits("/oauth/client.json")).toBeGreaterThanOrEqual(4)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "signs in a ChatGPT-shaped client by private_key_jwt through openid-client, and refuses replays",
    () =>
      Effect.gen(function* () {
        const { privateKey, publicKey } = yield* Effect.promise(() =>
          generateKeyPair("RS256", { extractable: true })
        )
        const jwk = { ...(yield* Effect.promise(() => exportJWK(publicKey))), kid: "connector-1", use: "sig" }
        const documents = yield* DocumentServer.start({
          "/oauth/connector/client.json": DocumentServer.json((origin) => ({
            client_id: `${origin}/oauth/connector/client.json`,
            client_name: "ChatGPT-shaped connector",
            redirect_uris: ["https://connector.example.com/connector/oauth/abc"],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "private_key_jwt",
            token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
            token_endpoint_auth_signing_alg: "RS256",
            jwks_uri: `${origin}/oauth/jwks.json`
          })),
          "/oauth/jwks.json": DocumentServer.json(() => ({ keys: [jwk] }))
        })
        const clientId = `${documents.origin}/oauth/connector/client.json`
        const { baseUrl } = yield* Server.startReaching(documents)
        yield* Effect.promise(async () => {
          const config = await client.discovery(
            new URL(baseUrl),
            clientId,
            undefined,
            client.PrivateKeyJwt({ key: privateKey, kid: "connector-1" }),
            { algorithm: "oauth2", execute: [client.allowInsecureRequests] }
          )
          expect(config.serverMetadata().token_endpoint_auth_methods_supported).toContain("private_key_jwt")
          const redirectUri = "https://connector.example.com/connector/oauth/abc"
          const grant = await Browser.codeFor(baseUrl, clientId, redirectUri, { state: "s1" })
          const tokens = await client.authorizationCodeGrant(config, grant.back, {
            pkceCodeVerifier: grant.verifier,
            expectedState: "s1"
          })
          expect(tokens.refresh_token).toMatch(/^lkr_/)
          const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? "")
          expect(refreshed.access_token).not.toBe(tokens.access_token)
          await client.tokenRevocation(config, refreshed.refresh_token ?? "")

          // Without its signature, or with a signature seen before, the client is refused.
          const unsigned = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: clientId,
            refresh_token: refreshed.refresh_token ?? ""
          })
          expect(unsigned.status).toBe(401)
          expect(await Browser.errorOf(unsigned)).toEqual({
            error: "invalid_client",
            error_description: "this client authenticates with private_key_jwt: client_assertion is required"
          })
          // Addressed to the token endpoint, as ChatGPT's assertions are reported to be.
          const now = Math.floor(Date.now() / 1000)
          const assertion = await new SignJWT({ jti: crypto.randomUUID() })
            .setProtectedHeader({ alg: "RS256", kid: "connector-1" })
            .setIssuer(clientId)
            .setSubject(clientId)
            .setAudience(`${baseUrl}/token`)
            .setIssuedAt(now)
            .setExpirationTime(now + 60)
            .sign(privateKey)
          const revokeWith = () =>
            Browser.form(baseUrl, "/revoke", {
              token: tokens.access_token,
              client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
              client_assertion: assertion
            })
          expect((await revokeWith()).status).toBe(200)
          const replayed = await revokeWith()
          expect(replayed.status).toBe(401)
          expect(await Browser.errorOf(replayed)).toEqual({
            error: "invalid_client",
            error_description: "client_assertion refused: it was used before"
          })
        })
        // Cached: one fetch of each for the whole session.
        expect(documents.hits("/oauth/jwks.json")).toBe(1)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
