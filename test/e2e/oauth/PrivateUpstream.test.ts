import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as KeycloakRealm from "../../support/idp/KeycloakRealm.js"
import * as Browser from "../../support/oauth/OAuthBrowser.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * `OAUTH2_PROVIDER=oidc` with an issuer on this machine over plain http, as an operator runs a
 * Keycloak beside the service: the built `latchkey` started as its own process, configured by
 * environment variables alone, allowed to reach the issuer by OUTBOUND_ALLOWED_PRIVATE_ADDRESSES
 * and refused it without.
 */

const upstreamClientId = "latchkey-oauth"
const upstreamClientSecret = "a-client-secret-of-the-oauth-service"
const redirectUri = "http://127.0.0.1:53682/callback"

/** The realm, with our callback on `oauthPort` registered. */
const keycloakRealm = (oauthPort: number) =>
  KeycloakRealm.start({
    clientId: upstreamClientId,
    clientSecret: upstreamClientSecret,
    callbackUrl: `http://127.0.0.1:${oauthPort}/callback`
  })

/** `latchkey oauth migrate`, then `latchkey oauth serve` until the scope closes, on `port`. */
const startOAuth = (port: number, issuer: URL, env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-cli-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const database = yield* TestDatabase.freshUrl()
    const baseUrl = `http://127.0.0.1:${port}`
    const variables = {
      LATCHKEY_DATA_DIR: dataDir,
      ...Option.match(database, { onNone: () => ({}), onSome: (url) => ({ SQL_URL: url }) }),
      API_HOST: "127.0.0.1",
      PORT: String(port),
      BASE_URL: baseUrl,
      OAUTH2_PROVIDER: "oidc",
      OAUTH2_ISSUER_URL: issuer.href,
      OAUTH2_CLIENT_ID: upstreamClientId,
      OAUTH2_CLIENT_SECRET: upstreamClientSecret,
      ...env
    }
    const migrate = yield* CliProcess.spawnCli(["oauth", "migrate"], variables)
    expect(yield* migrate.exited, migrate.lines().join("\n")).toBe(0)
    const running = yield* CliProcess.spawnCli(["oauth", "serve"], variables)
    yield* CliProcess.waitUntilAnswering(running, `${baseUrl}/.well-known/oauth-authorization-server`)
    return { baseUrl, running }
  })

/** What a client sends to our authorization endpoint, and the verifier to redeem its code. */
const authorization = (baseUrl: string, clientId: string) => {
  const { verifier, challenge } = Browser.pkce()
  return {
    verifier,
    url: Browser.authorizeUrl(baseUrl, {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz"
    })
  }
}

describe("latchkey oauth serve with an OpenID provider on this machine (a Keycloak realm, plain http)", () => {
  it.live(
    "with OUTBOUND_ALLOWED_PRIVATE_ADDRESSES=127.0.0.1, a login goes through it to a code and tokens",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const realm = yield* keycloakRealm(port)
        expect(realm.issuer.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/realms\/acme$/)
        const { baseUrl, running } = yield* startOAuth(port, realm.issuer, {
          OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1"
        })
        yield* running.waitForLine(
          /oauth: outbound calls may reach these private addresses besides public ones: 127\.0\.0\.1\/32 \(OUTBOUND_ALLOWED_PRIVATE_ADDRESSES\)/
        )
        yield* Effect.promise(async () => {
          const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          const { verifier, url } = authorization(baseUrl, clientId)
          // Authorize → the realm's login form → our callback → the client's redirect URI.
          const back = await Browser.login(url, "ada@example.com")
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
        })
        // The issuer is allowed: the start-up check had nothing to warn of, the login no failure.
        expect(running.lines().filter((line) => /OAUTH2_ISSUER_URL|upstream unavailable/.test(line))).toEqual(
          []
        )
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "without it, the start warns of the issuer naming the variable, and a login fails saying why",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const realm = yield* keycloakRealm(port)
        const { baseUrl, running } = yield* startOAuth(port, realm.issuer, {})
        yield* running.waitForLine(
          /oauth: outbound calls reach public addresses only \(OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists no private address\)/
        )
        const warning = yield* running.waitForLine(/OAUTH2_ISSUER_URL/)
        expect(JSON.parse(warning)).toMatchObject({
          level: "warn",
          msg: "oauth: OAUTH2_ISSUER_URL: 127.0.0.1 resolves to 127.0.0.1 (loopback), which the outbound guard refuses: add it to OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach 127.0.0.1"
        })
        const answer = yield* Effect.promise(async () => {
          const clientId = await Browser.registerClient(baseUrl, ["http://127.0.0.1/callback"])
          return fetch(authorization(baseUrl, clientId).url, { redirect: "manual" })
        })
        // Back to the client with the error, never to the realm.
        expect(answer.status).toBe(302)
        const location = new URL(answer.headers.get("location") ?? "")
        expect(`${location.origin}${location.pathname}`).toBe(redirectUri)
        expect(location.searchParams.get("error")).toBe("temporarily_unavailable")
        expect(location.searchParams.get("error_description")).toBe("the identity provider is unavailable")
        const failure = yield* running.waitForLine(/upstream unavailable/)
        expect(JSON.parse(failure).msg).toContain(
          "the outbound guard refused the call (only https destinations are contacted: plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists, and it lists none)"
        )
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
