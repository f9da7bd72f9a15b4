import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

const introspect = (baseUrl: string, token: string) =>
  Browser.form(
    baseUrl,
    "/introspect",
    { token },
    { authorization: `Bearer ${Server.introspectionToken}` }
  ).then((r) => r.json())

/** An OAuth error answer (RFC 6749 §5.2). */
const OAuthErrorBody = Schema.Struct({ error: Schema.String })

/** The fields of an active token's introspection these checks read (RFC 7662 §2.2). */
const ActiveToken = Schema.Struct({ sub: Schema.String, exp: Schema.Number, iat: Schema.Number })

describe("the public-client flow over HTTP (dynamic registration, PKCE, refresh rotation)", () => {
  it.live(
    "registers, logs in at the upstream, exchanges the code, refreshes, introspects and revokes",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        yield* Effect.promise(async () => {
          const redirectUri = "http://127.0.0.1:53682/callback"
          const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          const { verifier, challenge } = Browser.pkce()
          const back = await Browser.login(
            Browser.authorizeUrl(baseUrl, {
              client_id: clientId,
              redirect_uri: redirectUri,
              response_type: "code",
              code_challenge: challenge,
              code_challenge_method: "S256",
              state: "xyz",
              scope: "mcp:tools",
              resource: "https://mcp.example.com"
            })
          )
          expect(`${back.origin}${back.pathname}`).toBe(redirectUri)
          expect(back.searchParams.get("state")).toBe("xyz")
          expect(back.searchParams.get("iss")).toBe(baseUrl)
          const code = back.searchParams.get("code") ?? ""

          const exchanged = await Browser.form(baseUrl, "/token", {
            grant_type: "authorization_code",
            code,
            redirect_uri: redirectUri,
            client_id: clientId,
            code_verifier: verifier,
            // As MCP clients send it: the resource of the authorization request again (RFC 8707).
            resource: "https://mcp.example.com"
          })
          expect(exchanged.status).toBe(200)
          expect(exchanged.headers.get("cache-control")).toBe("no-store")
          const tokens = await Browser.tokensOf(exchanged)
          expect(tokens.token_type).toBe("Bearer")
          expect(tokens.expires_in).toBe(604800)
          expect(tokens.scope).toBe("mcp:tools")
          expect(tokens.refresh_token).toMatch(/^lkr_/)

          const info = await introspect(baseUrl, tokens.access_token)
          expect(info).toMatchObject({
            active: true,
            client_id: clientId,
            aud: "https://mcp.example.com",
            iss: baseUrl,
            token_type: "Bearer"
          })
          // A resource server without the secret is told the scheme; with a wrong one, also why.
          const introspectAs = (authorization?: string) =>
            Browser.form(
              baseUrl,
              "/introspect",
              { token: tokens.access_token },
              authorization === undefined ? {} : { authorization }
            )
          const unauthenticated = await introspectAs()
          expect(unauthenticated.status).toBe(401)
          expect(unauthenticated.headers.get("www-authenticate")).toBe('Bearer realm="latchkey"')
          const wrongSecret = await introspectAs("Bearer not-the-secret")
          expect(wrongSecret.status).toBe(401)
          expect(wrongSecret.headers.get("www-authenticate")).toBe(
            'Bearer realm="latchkey", error="invalid_token"'
          )
          // Another scheme presents no Bearer credential: the scheme only (RFC 6750 §3.1).
          const otherScheme = await introspectAs("Basic bm90OnRoZS1zZWNyZXQ=")
          expect(otherScheme.status).toBe(401)
          expect(otherScheme.headers.get("www-authenticate")).toBe('Bearer realm="latchkey"')
          const active = Schema.decodeUnknownSync(ActiveToken)(info)
          expect(active.sub).toMatch(/^[0-9a-f-]{36}$/)
          expect(active.exp - active.iat).toBe(7 * 24 * 60 * 60)
          const refreshInfo = await introspect(baseUrl, tokens.refresh_token ?? "")
          expect(refreshInfo).toMatchObject({
            active: true,
            client_id: clientId,
            sub: active.sub,
            aud: "https://mcp.example.com",
            token_type: "refresh_token"
          })
          const refreshActive = Schema.decodeUnknownSync(ActiveToken)(refreshInfo)
          expect(refreshActive.exp - refreshActive.iat).toBe(30 * 24 * 60 * 60)

          // Another resource than the grant's is refused, and costs the client nothing.
          const elsewhere = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: clientId,
            refresh_token: tokens.refresh_token ?? "",
            resource: "https://other.example/"
          })
          expect(elsewhere.status).toBe(400)
          expect(await elsewhere.json()).toMatchObject({
            error: "invalid_target",
            error_description: "resource is not the one granted"
          })

          // Two resources at once: the token endpoint takes one (RFC 8707 §2); elsewhere a
          // repeated parameter is malformed.
          const twice = (path: string) => {
            const body = new URLSearchParams({
              grant_type: "refresh_token",
              client_id: clientId,
              refresh_token: tokens.refresh_token ?? "",
              token: tokens.refresh_token ?? ""
            })
            body.append("resource", "https://mcp.example.com")
            body.append("resource", "https://other.example/")
            return fetch(`${baseUrl}${path}`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: body.toString()
            }).then(async (answer) => [
              answer.status,
              Schema.decodeUnknownSync(OAuthErrorBody)(await answer.json()).error
            ])
          }
          expect(await twice("/token")).toEqual([400, "invalid_target"])
          expect(await twice("/revoke")).toEqual([400, "invalid_request"])

          const rotated = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: clientId,
            refresh_token: tokens.refresh_token ?? ""
          })
          expect(rotated.status).toBe(200)
          const next = await Browser.tokensOf(rotated)
          expect(next.refresh_token).not.toBe(tokens.refresh_token)

          const replay = await Browser.form(baseUrl, "/token", {
            grant_type: "refresh_token",
            client_id: clientId,
            refresh_token: tokens.refresh_token ?? ""
          })
          expect(replay.status).toBe(400)
          expect(await replay.json()).toMatchObject({ error: "invalid_grant" })
          // The replay revoked the family: the rotated tokens died with it.
          expect(await introspect(baseUrl, next.access_token)).toEqual({ active: false })

          const fresh = await Browser.login(
            Browser.authorizeUrl(baseUrl, {
              client_id: clientId,
              redirect_uri: redirectUri,
              response_type: "code",
              code_challenge: challenge,
              code_challenge_method: "S256"
            })
          )
          const again = await Browser.tokensOf(
            await Browser.form(baseUrl, "/token", {
              grant_type: "authorization_code",
              code: fresh.searchParams.get("code") ?? "",
              redirect_uri: redirectUri,
              client_id: clientId,
              code_verifier: verifier
            })
          )
          const revoked = await Browser.form(baseUrl, "/revoke", {
            token: again.refresh_token ?? "",
            client_id: clientId
          })
          expect(revoked.status).toBe(200)
          expect(await introspect(baseUrl, again.access_token)).toEqual({ active: false })
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("takes a token request without redirect_uri, as OAuth 2.1 clients send it", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Server.start()
      yield* Effect.promise(async () => {
        const redirectUri = "http://127.0.0.1:53682/callback"
        const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
        const { code, verifier } = await Browser.codeFor(baseUrl, clientId, redirectUri)
        const exchanged = await Browser.form(baseUrl, "/token", {
          grant_type: "authorization_code",
          code,
          client_id: clientId,
          code_verifier: verifier
        })
        expect(exchanged.status).toBe(200)
        expect((await Browser.tokensOf(exchanged)).refresh_token).toMatch(/^lkr_/)
      })
    }).pipe(Effect.scoped)
  )
})
