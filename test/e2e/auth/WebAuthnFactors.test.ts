import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as WebAuthnBrowser from "../../support/auth/WebAuthnBrowser.js"
import { jsonObject } from "../../support/JsonBody.js"

/**
 * MFA `webauthn` factors end to end: supabase-js's browser build in Chromium, its virtual
 * authenticator in place of a security key, `auth.mfa.webauthn.register()` and `authenticate()`
 * against the built service with WebAuthn factors on and the page's origin as the relying party's.
 */

let scope: Scope.CloseableScope
let browser: WebAuthnBrowser.WebAuthnBrowser
let baseUrl = ""
let anonKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  browser = await Effect.runPromise(Scope.extend(WebAuthnBrowser.launch, scope))
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: {
          AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
          AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
          AUTHSVC_WEBAUTHN_RP_ID: WebAuthnBrowser.relyingPartyId,
          AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "latchkey e2e",
          AUTHSVC_WEBAUTHN_RP_ORIGINS: browser.origin,
          // The bad-input test verifies more often than the per-minute limit allows.
          AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000"
        }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 90_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const password = "correct horse battery staple"

/** What a supabase-js call in the page came to, as JSON: its error's status, code and message, or ok. */
interface Outcome {
  readonly error: { readonly status?: number; readonly code?: string; readonly message: string } | null
}

/** Page code: `result` of a supabase-js call reduced to an `Outcome`. */
const outcomeOf = (call: string) => `
  const result = await ${call}
  return { error: result.error && { status: result.error.status, code: result.error.code, message: result.error.message } }`

const level = `
  const { data } = await client.auth.mfa.getAuthenticatorAssuranceLevel()
  return { current: data.currentLevel, methods: data.currentAuthenticationMethods.map((entry) => entry.method) }`

/**
 * auth-js asks for a roaming security key by default (`authenticatorAttachment: "cross-platform"`,
 * `hints: ["security-key"]`); the virtual authenticator is a platform one, as a laptop's
 * fingerprint reader, so the page overrides that as an application offering one would.
 */
const platform = `{ authenticatorSelection: { authenticatorAttachment: "platform" }, hints: [] }`

const signIn = (email: string) =>
  outcomeOf(
    `client.auth.signInWithPassword({ email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} })`
  )

describe("WebAuthn factors through supabase-js in a browser", () => {
  it("registers a security key (aal2), then proves it at a later sign-in; another origin is refused", async () => {
    const tab = await browser.open({ url: baseUrl, key: anonKey })
    const email = `user-${randomUUID()}@example.com`
    expect(
      await tab.run<Outcome>(
        outcomeOf(
          `client.auth.signUp({ email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} })`
        )
      )
    ).toEqual({ error: null })

    expect(
      await tab.run<Outcome>(
        outcomeOf(`client.auth.mfa.webauthn.register({ friendlyName: "key" }, ${platform})`)
      )
    ).toEqual({
      error: null
    })
    expect(await tab.run(level)).toEqual({ current: "aal2", methods: ["mfa/webauthn", "password"] })
    const factors = await tab.run<ReadonlyArray<{ id: string; status: string; web_authn_aaguid?: string }>>(
      "return (await client.auth.mfa.listFactors()).data.webauthn"
    )
    expect(factors.map((factor) => factor.status)).toEqual(["verified"])
    const factorId = factors[0]?.id ?? ""
    expect((await tab.credentials()).length).toBe(1)

    // A later sign-in is aal1 until the key answers.
    expect(await tab.run<Outcome>(signIn(email))).toEqual({ error: null })
    expect((await tab.run<{ current: string }>(level)).current).toBe("aal1")
    const authenticate = outcomeOf(`client.auth.mfa.webauthn.authenticate({ factorId: arg }, { hints: [] })`)
    expect(await tab.run<Outcome>(authenticate, factorId)).toEqual({ error: null })
    expect(await tab.run(level)).toEqual({ current: "aal2", methods: ["mfa/webauthn", "password"] })
    const signCount = (await tab.credentials())[0]?.signCount ?? 0
    expect(signCount).toBeGreaterThan(0)

    // The same key from a page at an origin the relying party does not list.
    await tab.load(browser.otherOrigin)
    expect(await tab.run<Outcome>(signIn(email))).toEqual({ error: null })
    expect(await tab.run<Outcome>(authenticate, factorId)).toEqual({
      error: {
        status: 422,
        code: "mfa_verification_failed",
        message: "Failed to validate WebAuthn MFA response"
      }
    })
    expect((await tab.run<{ current: string }>(level)).current).toBe("aal1")
  }, 90_000)

  it("answers bad WebAuthn input with error codes, never a 500", async () => {
    const tab = await browser.open({ url: baseUrl, key: anonKey })
    const email = `user-${randomUUID()}@example.com`
    await tab.run(
      outcomeOf(
        `client.auth.signUp({ email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} })`
      )
    )
    const factorId = await tab.run<string>(
      `return (await client.auth.mfa.enroll({ factorType: "webauthn", friendlyName: "key" })).data.id`
    )
    const token = await tab.run<string>("return (await client.auth.getSession()).data.session.access_token")
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      return { status: answer.status, body: await jsonObject(answer) }
    }
    const challenge = await post(`/factors/${factorId}/challenge`, { webauthn: { rpId: "localhost" } })
    expect(challenge.status).toBe(200)
    expect(challenge.body).toMatchObject({
      type: "webauthn",
      webauthn: {
        type: "create",
        credential_options: {
          publicKey: { rp: { id: "localhost", name: "latchkey e2e" }, attestation: "none" }
        }
      }
    })
    const challengeId = String(challenge.body.id)
    const verify = async (webauthn: unknown) => {
      const answer = await post(`/factors/${factorId}/verify`, { challenge_id: challengeId, webauthn })
      return [answer.status, answer.body.error_code, answer.body.msg]
    }
    expect(await verify(undefined)).toEqual([400, "validation_failed", "WebAuthn config required"])
    expect(await verify({ type: "get", credential_response: {} })).toEqual([
      400,
      "validation_failed",
      "WebAuthn type must be create or request"
    ])
    expect(await verify({ type: "create" })).toEqual([
      400,
      "validation_failed",
      "credential_response required"
    ])
    for (const malformed of [
      "garbage",
      7,
      { id: "x" },
      { id: "x", rawId: "x", type: "public-key", response: {} }
    ]) {
      expect(await verify({ type: "create", credential_response: malformed })).toEqual([
        400,
        "validation_failed",
        "Invalid credential_response"
      ])
      expect(await verify({ type: "request", credential_response: malformed })).toEqual([
        400,
        "validation_failed",
        "Invalid credential_response"
      ])
    }
    expect(
      (await post(`/factors/${factorId}/verify`, { challenge_id: challengeId, webauthn: "x" })).status
    ).toBe(400)
    expect(
      await post(`/factors/${factorId}/verify`, {
        challenge_id: randomUUID(),
        webauthn: { type: "create", credential_response: {} }
      })
    ).toMatchObject({
      status: 422,
      body: { error_code: "mfa_factor_not_found" }
    })
  }, 60_000)
})
