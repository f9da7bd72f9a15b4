import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

describe("discovery (RFC 8414)", () => {
  it.live(
    "publishes the metadata, with CORS, and advertises introspection only when enabled",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        const { baseUrl: withoutIntrospection } = yield* Server.start({
          env: { INTROSPECTION_TOKEN: undefined }
        })
        yield* Effect.promise(async () => {
          const response = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`, {
            headers: { origin: "https://app.example.com" }
          })
          expect(response.status).toBe(200)
          expect(response.headers.get("access-control-allow-origin")).toBe("*")
          const metadata = await response.json()
          expect(metadata).toMatchObject({
            issuer: baseUrl,
            authorization_endpoint: `${baseUrl}/`,
            token_endpoint: `${baseUrl}/token`,
            registration_endpoint: `${baseUrl}/register`,
            revocation_endpoint: `${baseUrl}/revoke`,
            introspection_endpoint: `${baseUrl}/introspect`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: [
              "none",
              "client_secret_basic",
              "client_secret_post",
              "private_key_jwt"
            ],
            authorization_response_iss_parameter_supported: true
          })
          // Client assertions are checked against published keys: asymmetric algorithms only.
          expect(metadata).toMatchObject({
            token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining([
              "RS256",
              "ES256",
              "EdDSA"
            ])
          })
          for (const symmetric of ["HS256", "HS384", "HS512", "none"]) {
            expect(metadata).not.toMatchObject({
              token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining([symmetric])
            })
          }

          const preflight = await fetch(`${baseUrl}/token`, {
            method: "OPTIONS",
            headers: { origin: "https://app.example.com", "access-control-request-method": "POST" }
          })
          expect(preflight.status).toBe(204)
          expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization")

          // A browser-based MCP client (MCP Inspector) asks for the metadata with its protocol version.
          const metadataPreflight = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`, {
            method: "OPTIONS",
            headers: {
              origin: "http://localhost:6274",
              "access-control-request-method": "GET",
              "access-control-request-headers": "mcp-protocol-version"
            }
          })
          expect(metadataPreflight.status).toBe(204)
          expect(metadataPreflight.headers.get("access-control-allow-headers")).toContain(
            "MCP-Protocol-Version"
          )

          const disabled = await (
            await fetch(`${withoutIntrospection}/.well-known/oauth-authorization-server`)
          ).json()
          expect(disabled).not.toHaveProperty("introspection_endpoint")
          const introspect = await fetch(`${withoutIntrospection}/introspect`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "token=x"
          })
          expect(introspect.status).toBe(404)
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
