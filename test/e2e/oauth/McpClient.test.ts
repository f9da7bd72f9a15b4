import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { freePort } from "../../support/FreePort.js"
import * as DocumentServer from "../../support/oauth/DocumentServer.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as Server from "../../support/oauth/OAuthServerHarness.js"

const redirectUri = "http://127.0.0.1:53682/callback"

/**
 * An MCP server's part in the discovery: its RFC 9728 metadata names the oauth service as the
 * authorization server of the resource `/mcp` on its own loopback port.
 */
const resourceServer = (issuer: string) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const url = `http://127.0.0.1:${port}/mcp`
    const server = createServer((request, response) => {
      if (request.url?.startsWith("/.well-known/oauth-protected-resource") === true) {
        response.setHeader("content-type", "application/json")
        response.end(
          JSON.stringify({ resource: url, authorization_servers: [issuer], scopes_supported: ["mcp:tools"] })
        )
        return
      }
      response.statusCode = 404
      response.end()
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(port, "127.0.0.1", () => resume(Effect.void))
      }),
      () => Effect.sync(() => server.close())
    )
    return url
  })

/** What the SDK asks a connector to keep: its registration, tokens, verifier, and where it sent the user. */
interface Kept {
  client?: OAuthClientInformationMixed
  tokens?: OAuthTokens
  verifier?: string
  authorizeUrl?: URL
}

/** The connector's side; it sends the user back to the first of `redirectUris`. */
const providerOver = (
  kept: Kept,
  options: { readonly clientMetadataUrl?: string; readonly redirectUris?: Array<string> } = {}
): OAuthClientProvider => ({
  ...(options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: options.clientMetadataUrl }),
  redirectUrl: options.redirectUris?.[0] ?? redirectUri,
  clientMetadata: {
    redirect_uris: options.redirectUris ?? [redirectUri],
    client_name: "MCP connector",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  } satisfies OAuthClientMetadata,
  state: () => "connector-state",
  clientInformation: () => kept.client,
  saveClientInformation: (client) => {
    kept.client = client
  },
  tokens: () => kept.tokens,
  saveTokens: (tokens) => {
    kept.tokens = tokens
  },
  redirectToAuthorization: (url) => {
    kept.authorizeUrl = url
  },
  saveCodeVerifier: (verifier) => {
    kept.verifier = verifier
  },
  codeVerifier: () => kept.verifier ?? "",
  invalidateCredentials: (scope) => {
    if (scope === "all" || scope === "tokens") delete kept.tokens
    if (scope === "all" || scope === "client") delete kept.client
  }
})

const Introspected = Schema.Struct({
  active: Schema.Literal(true),
  client_id: Schema.String,
  scope: Schema.String,
  aud: Schema.String
})

describe("an MCP connector (the MCP TypeScript SDK's client auth) against the oauth service", () => {
  it.live(
    "discovers it from the resource's metadata, registers, authorizes, exchanges, refreshes and recovers from a replay",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        const serverUrl = yield* resourceServer(baseUrl)
        yield* Effect.promise(async () => {
          const kept: Kept = {}
          const provider = providerOver(kept)

          // No tokens: the SDK discovers the service, registers and sends the user to authorize.
          expect(await auth(provider, { serverUrl })).toBe("REDIRECT")
          expect(kept.client?.client_id).toMatch(/^[0-9a-f-]{36}$/)
          const authorizeUrl = kept.authorizeUrl
          if (authorizeUrl === undefined) throw new Error("the SDK sent the user nowhere")
          expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${baseUrl}/`)
          expect(authorizeUrl.searchParams.get("resource")).toBe(serverUrl)
          expect(authorizeUrl.searchParams.get("scope")).toBe("mcp:tools")
          expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256")

          const back = await Browser.login(authorizeUrl, "connector@example.com")
          expect(back.origin + back.pathname).toBe(redirectUri)
          expect(back.searchParams.get("state")).toBe("connector-state")
          const code = back.searchParams.get("code") ?? ""
          expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED")
          const first = kept.tokens
          if (first === undefined) throw new Error("the SDK kept no tokens")
          expect(first.access_token).toMatch(/^lka_/)
          expect(first.refresh_token).toMatch(/^lkr_/)
          expect(first.scope).toBe("mcp:tools")

          // The resource server's check of the token: bound to it, for this client and scope.
          const introspect = (token: string) =>
            Browser.form(
              baseUrl,
              "/introspect",
              { token },
              { authorization: `Bearer ${Server.introspectionToken}` }
            ).then((response) => response.json())
          const info = Schema.decodeUnknownSync(Introspected)(await introspect(first.access_token))
          expect(info).toMatchObject({
            client_id: kept.client?.client_id,
            scope: "mcp:tools",
            aud: serverUrl
          })

          // With a refresh token kept, the SDK refreshes instead of sending the user again.
          expect(await auth(provider, { serverUrl })).toBe("AUTHORIZED")
          const second = kept.tokens
          expect(second?.refresh_token).toMatch(/^lkr_/)
          expect(second?.refresh_token).not.toBe(first.refresh_token)
          expect(second?.access_token).not.toBe(first.access_token)

          // A replayed refresh token: `invalid_grant` ends the family; the SDK reads it as such,
          // forgets the tokens and starts a new authorization.
          kept.tokens = first
          delete kept.authorizeUrl
          expect(await auth(provider, { serverUrl })).toBe("REDIRECT")
          expect(kept.tokens).toBeUndefined()
          expect(kept.authorizeUrl).toBeDefined()
          expect(await introspect(second?.access_token ?? "")).toEqual({ active: false })
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "identifies itself by its Client ID Metadata Document where the service says it may",
    () =>
      Effect.gen(function* () {
        const documents = yield* DocumentServer.start({
          "/connector/client.json": DocumentServer.json((origin) => ({
            client_id: `${origin}/connector/client.json`,
            client_name: "MCP connector",
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"]
          }))
        })
        const clientId = `${documents.origin}/connector/client.json`
        const { baseUrl } = yield* Server.startReaching(documents)
        const serverUrl = yield* resourceServer(baseUrl)
        yield* Effect.promise(async () => {
          const kept: Kept = {}
          const provider = providerOver(kept, { clientMetadataUrl: clientId })
          // `client_id_metadata_document_supported` in the metadata: the SDK registers nothing.
          expect(await auth(provider, { serverUrl })).toBe("REDIRECT")
          expect(kept.client?.client_id).toBe(clientId)
          const authorizeUrl = kept.authorizeUrl
          if (authorizeUrl === undefined) throw new Error("the SDK sent the user nowhere")
          expect(authorizeUrl.searchParams.get("client_id")).toBe(clientId)
          const back = await Browser.login(authorizeUrl, "connector@example.com")
          const code = back.searchParams.get("code") ?? ""
          expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED")
          const info = await Browser.form(
            baseUrl,
            "/introspect",
            { token: kept.tokens?.access_token ?? "" },
            { authorization: `Bearer ${Server.introspectionToken}` }
          ).then((response) => response.json())
          expect(info).toMatchObject({ active: true, client_id: clientId, aud: serverUrl })
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "registers an app's own scheme beside a loopback one, as Cursor does, and signs in through it",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Server.start()
        const serverUrl = yield* resourceServer(baseUrl)
        yield* Effect.promise(async () => {
          const kept: Kept = {}
          const appUri = "cursor://anysphere.cursor-mcp/oauth/callback"
          const provider = providerOver(kept, { redirectUris: [appUri, "http://localhost:8787/callback"] })
          expect(await auth(provider, { serverUrl })).toBe("REDIRECT")
          expect(kept.client && "redirect_uris" in kept.client ? kept.client.redirect_uris : []).toEqual([
            appUri,
            "http://localhost:8787/callback"
          ])
          const authorizeUrl = kept.authorizeUrl
          if (authorizeUrl === undefined) throw new Error("the SDK sent the user nowhere")
          expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(appUri)
          const back = await Browser.login(authorizeUrl, "cursor-user@example.com")
          expect(back.href.split("?")[0]).toBe(appUri)
          expect(back.searchParams.get("iss")).toBe(baseUrl)
          const code = back.searchParams.get("code") ?? ""
          expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED")
          expect(kept.tokens?.access_token).toMatch(/^lka_/)
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
