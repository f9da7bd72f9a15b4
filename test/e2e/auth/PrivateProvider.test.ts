import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { jwtSecret } from "../../support/auth/AuthServerHarness.js"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as KeycloakRealm from "../../support/idp/KeycloakRealm.js"
import { loginThroughForm } from "../../support/oauth/DevUpstreamLogin.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The `keycloak` provider with a realm inside the deployment's network (here on this machine,
 * over plain http): the built `latchkey` started as its own process, configured by environment
 * variables alone, allowed to reach the realm by AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES and
 * refused it without.
 */

const siteUrl = "http://localhost:3000"
const clientId = "latchkey-auth"
const clientSecret = "a-client-secret-of-the-auth-service"

/** `latchkey auth serve` (it migrates at start) on `port` until the scope closes. */
const startAuth = (
  port: number,
  realm: URL,
  env: Readonly<Record<string, string>>,
  realmVariable = "AUTHSVC_EXTERNAL_KEYCLOAK_URL"
) =>
  Effect.gen(function* () {
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-cli-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const database = yield* TestDatabase.freshUrl()
    const baseUrl = `http://127.0.0.1:${port}`
    const running = yield* CliProcess.spawnCli(["auth", "serve"], {
      LATCHKEY_DATA_DIR: dataDir,
      ...Option.match(database, { onNone: () => ({}), onSome: (url) => ({ DATABASE_URL: url }) }),
      AUTHSVC_API_HOST: "127.0.0.1",
      AUTHSVC_API_PORT: String(port),
      AUTHSVC_SITE_URL: siteUrl,
      AUTHSVC_API_EXTERNAL_URL: baseUrl,
      AUTHSVC_JWT_SECRET: jwtSecret,
      AUTHSVC_EXTERNAL_KEYCLOAK_ENABLED: "true",
      AUTHSVC_EXTERNAL_KEYCLOAK_CLIENT_ID: clientId,
      AUTHSVC_EXTERNAL_KEYCLOAK_SECRET: clientSecret,
      [realmVariable]: realm.href,
      ...env
    })
    yield* CliProcess.waitUntilAnswering(running, `${baseUrl}/health`)
    return { baseUrl, running }
  })

/** /authorize → the realm's login form as `email` → our callback; where the callback sends the browser. */
const signIn = (baseUrl: string, email: string) =>
  Effect.promise(async () => {
    const authorize = new URL(`${baseUrl}/authorize`)
    authorize.searchParams.set("provider", "keycloak")
    authorize.searchParams.set("redirect_to", `${siteUrl}/welcome`)
    const toRealm = await fetch(authorize, { redirect: "manual" })
    expect(toRealm.status).toBe(302)
    const callback = await loginThroughForm(new URL(toRealm.headers.get("location") ?? ""), email)
    expect(`${callback.origin}${callback.pathname}`).toBe(`${baseUrl}/callback`)
    const back = await fetch(callback, { redirect: "manual" })
    expect(back.status).toBe(302)
    return new URL(back.headers.get("location") ?? "")
  })

describe("latchkey auth serve with a Keycloak realm on this machine (plain http)", () => {
  it.live(
    "with AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES=127.0.0.1, the realm's sign-in makes a session",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const realm = yield* KeycloakRealm.start({
          clientId,
          clientSecret,
          callbackUrl: `http://127.0.0.1:${port}/callback`
        })
        const { baseUrl, running } = yield* startAuth(port, realm.issuer, {
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1"
        })
        yield* running.waitForLine(
          /auth: outbound calls may reach these private addresses besides public ones: 127\.0\.0\.1\/32 \(AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES\)/
        )
        const email = `person-${crypto.randomUUID()}@example.com`
        const landed = yield* signIn(baseUrl, email)
        expect(`${landed.origin}${landed.pathname}`).toBe(`${siteUrl}/welcome`)
        const fragment = new URLSearchParams(landed.hash.slice(1))
        expect(fragment.get("token_type")).toBe("bearer")
        const user = yield* Effect.promise(async () => {
          const response = await fetch(`${baseUrl}/user`, {
            headers: { authorization: `Bearer ${fragment.get("access_token") ?? ""}` }
          })
          expect(response.status).toBe(200)
          return response.json()
        })
        expect(user).toMatchObject({ email, app_metadata: { provider: "keycloak" } })
        expect(
          running.lines().filter((line) => /AUTHSVC_EXTERNAL_KEYCLOAK_URL|external provider/.test(line))
        ).toEqual([])
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "without it, the start warns of the realm naming the variable, and a sign-in fails saying why",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const realm = yield* KeycloakRealm.start({
          clientId,
          clientSecret,
          callbackUrl: `http://127.0.0.1:${port}/callback`
        })
        const { baseUrl, running } = yield* startAuth(port, realm.issuer, {})
        yield* running.waitForLine(
          /auth: outbound calls reach public addresses only \(AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists no private address\)/
        )
        const warning = yield* running.waitForLine(/AUTHSVC_EXTERNAL_KEYCLOAK_URL/)
        expect(JSON.parse(warning)).toMatchObject({
          level: "warn",
          msg: "auth: AUTHSVC_EXTERNAL_KEYCLOAK_URL: 127.0.0.1 resolves to 127.0.0.1 (loopback), which the outbound guard refuses: add it to AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach 127.0.0.1"
        })
        // The browser reaches the realm (our service does not call it for that), but the code
        // is never redeemed: the application gets Supabase Auth's error.
        const landed = yield* signIn(baseUrl, "ada@example.com")
        expect(`${landed.origin}${landed.pathname}`).toBe(`${siteUrl}/welcome`)
        const error = new URLSearchParams(landed.hash.slice(1))
        expect(error.get("error")).toBe("server_error")
        expect(error.get("access_token")).toBeNull()
        const failure = yield* running.waitForLine(/sign-in at external provider failed/)
        expect(JSON.parse(failure).msg).toContain(
          "the outbound guard refused the call (only https destinations are contacted: plain http goes only to private addresses AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists, and it lists none)"
        )
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "written with Supabase Auth's names, the start-up lines name the variables as written",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const realm = yield* KeycloakRealm.start({
          clientId,
          clientSecret,
          callbackUrl: `http://127.0.0.1:${port}/callback`
        })
        const { running } = yield* startAuth(
          port,
          realm.issuer,
          { GOTRUE_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "10.0.0.0/8" },
          "GOTRUE_EXTERNAL_KEYCLOAK_URL"
        )
        yield* running.waitForLine(
          /auth: outbound calls may reach these private addresses besides public ones: 10\.0\.0\.0\/8 \(GOTRUE_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES\)/
        )
        const warning = yield* running.waitForLine(/EXTERNAL_KEYCLOAK_URL: 127/)
        expect(JSON.parse(warning).msg).toBe(
          "auth: GOTRUE_EXTERNAL_KEYCLOAK_URL: 127.0.0.1 resolves to 127.0.0.1 (loopback), which the outbound guard refuses: add it to GOTRUE_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach 127.0.0.1"
        )
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
