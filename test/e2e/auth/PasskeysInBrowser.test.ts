import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { decodeJwt } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as WebAuthnBrowser from "../../support/auth/WebAuthnBrowser.js"

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
          AUTHSVC_PASSKEY_ENABLED: "true",
          AUTHSVC_WEBAUTHN_RP_ID: WebAuthnBrowser.relyingPartyId,
          AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "latchkey",
          // The page's origin only: the browser's other origin is the wrong one.
          AUTHSVC_WEBAUTHN_RP_ORIGINS: browser.origin
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

/** What a supabase-js call returned, reduced to JSON the test can read. */
interface Outcome {
  readonly error: { readonly code?: string; readonly status?: number } | null
  readonly data: Record<string, unknown> | null
}

const outcome = `({ data, error }) => ({
  data: data ?? null,
  error: error === null ? null : { code: error.code, status: error.status, message: error.message }
})`

describe("passkeys in Chromium through supabase-js against the built service", () => {
  it("registers a passkey while signed in, signs out, and signs in with it", async () => {
    const tab = await browser.open({ url: baseUrl, key: anonKey })
    const email = `${crypto.randomUUID()}@example.com`
    const signedUp = await tab.run<Outcome>(
      `return (${outcome})(await client.auth.signUp({ email: arg, password: "correct horse battery staple" }))`,
      email
    )
    expect(signedUp.error).toBeNull()
    const userId = await tab.run<string>("return (await client.auth.getUser()).data.user.id")

    const registered = await tab.run<Outcome>(`return (${outcome})(await client.auth.registerPasskey())`)
    expect(registered.error).toBeNull()
    expect(registered.data).toMatchObject({ id: expect.any(String), friendly_name: "Passkey" })
    const held = await tab.credentials()
    expect(held.map((credential) => [credential.isResidentCredential, credential.rpId])).toEqual([
      [true, "localhost"]
    ])
    const listed = await tab.run<Outcome>(`return (${outcome})(await client.auth.passkey.list())`)
    expect(listed.data).toEqual([
      expect.objectContaining({ id: registered.data?.id, friendly_name: "Passkey" })
    ])

    await tab.run("await client.auth.signOut()")
    expect(await tab.run<boolean>("return (await client.auth.getSession()).data.session === null")).toBe(true)

    const signedIn = await tab.run<Outcome>(`return (${outcome})(await client.auth.signInWithPasskey())`)
    expect(signedIn.error).toBeNull()
    const token = await tab.run<string>("return (await client.auth.getSession()).data.session.access_token")
    const claims = decodeJwt(token)
    expect([claims.sub, claims.aal, claims.amr]).toEqual([
      userId,
      "aal1",
      [expect.objectContaining({ method: "passkey" })]
    ])
    expect(await tab.run<string>("return (await client.auth.getUser()).data.user.email")).toBe(email)
  }, 60_000)

  it("refuses a replayed assertion, and an assertion made on a page of an origin not listed", async () => {
    const tab = await browser.open({ url: baseUrl, key: anonKey })
    await tab.run(
      `const { error } = await client.auth.signUp({ email: arg, password: "correct horse battery staple" })
       if (error) throw error
       const registered = await client.auth.registerPasskey()
       if (registered.error) throw registered.error
       await client.auth.signOut()`,
      `${crypto.randomUUID()}@example.com`
    )
    // supabase-js's two calls with the browser's ceremony between them, so the assertion can be
    // presented again.
    const replayed = await tab.run<{ first: Outcome; again: Outcome; otherChallenge: Outcome }>(
      `const outcome = ${outcome}
       const started = await client.auth.passkey.startAuthentication()
       const options = PublicKeyCredential.parseRequestOptionsFromJSON(started.data.options)
       const credential = (await navigator.credentials.get({ publicKey: options })).toJSON()
       const first = outcome(await client.auth.passkey.verifyAuthentication({ challengeId: started.data.challenge_id, credential }))
       const again = outcome(await client.auth.passkey.verifyAuthentication({ challengeId: started.data.challenge_id, credential }))
       const fresh = await client.auth.passkey.startAuthentication()
       const otherChallenge = outcome(await client.auth.passkey.verifyAuthentication({ challengeId: fresh.data.challenge_id, credential }))
       return { first, again, otherChallenge }`
    )
    expect(replayed.first.error).toBeNull()
    expect(replayed.again.error).toMatchObject({ code: "webauthn_challenge_not_found", status: 400 })
    expect(replayed.otherChallenge.error).toMatchObject({ code: "webauthn_verification_failed", status: 400 })

    await tab.run("await client.auth.signOut()")
    // The same browser and authenticator on another port of localhost: the relying party id
    // fits, so the browser signs, and the service refuses the origin.
    await tab.load(browser.otherOrigin)
    const elsewhere = await tab.run<Outcome>(`return (${outcome})(await client.auth.signInWithPasskey())`)
    expect(elsewhere.error).toMatchObject({ code: "webauthn_verification_failed", status: 400 })
    expect(await tab.run<boolean>("return (await client.auth.getSession()).data.session === null")).toBe(true)
  }, 60_000)
})
