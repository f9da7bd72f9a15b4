import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as ProviderUpstream from "../../support/auth/ProviderUpstream.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { freePort } from "../../support/FreePort.js"
import { loginThroughForm } from "../../support/oauth/DevUpstreamLogin.js"

const siteUrl = "http://localhost:3000"
const clientId = "latchkey-auth"
const clientSecret = "a-client-secret-of-the-auth-service"

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const port = await Effect.runPromise(freePort)
  // A real OpenID provider (oidc-provider) plays the Keycloak realm, on loopback.
  const upstream = await ProviderUpstream.start(scope, {
    authPort: port,
    clientId,
    clientSecret,
    keycloakPaths: true
  })
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        port,
        env: {
          AUTHSVC_EXTERNAL_KEYCLOAK_ENABLED: "true",
          AUTHSVC_EXTERNAL_KEYCLOAK_CLIENT_ID: clientId,
          AUTHSVC_EXTERNAL_KEYCLOAK_SECRET: clientSecret,
          AUTHSVC_EXTERNAL_KEYCLOAK_URL: upstream.issuer.href,
          AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED: "true",
          // The upstream is on loopback, which the outbound guard refuses unless listed.
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1"
        }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const freshEmail = () => `person-${crypto.randomUUID()}@example.com`

/** Follows /authorize to the provider, signs in there as `email`, and returns our callback's redirect. */
const signInAt = async (authorizeUrl: string, email: string) => {
  const toProvider = await fetch(authorizeUrl, { redirect: "manual" })
  expect(toProvider.status).toBe(302)
  const callback = await loginThroughForm(new URL(toProvider.headers.get("location") ?? ""), email)
  expect(`${callback.origin}${callback.pathname}`).toBe(`${baseUrl}/callback`)
  const back = await fetch(callback, { redirect: "manual" })
  expect(back.status).toBe(302)
  return { callback, location: new URL(back.headers.get("location") ?? "") }
}

/** Signs in as `email` at the provider's URL (what linkIdentity hands back) and returns our callback's redirect. */
const finishAt = async (providerUrl: string, email: string) => {
  const callback = await loginThroughForm(new URL(providerUrl), email)
  const back = await fetch(callback, { redirect: "manual" })
  expect(back.status).toBe(302)
  return { location: new URL(back.headers.get("location") ?? "") }
}

/** A user signed up as `email` who links the provider's account of `providerEmail` (linkIdentity). */
const signUpAndLink = async (email: string, providerEmail: string) => {
  const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
  await supabase.auth.signUp({ email, password: "a long enough password" })
  const linking = await supabase.auth.linkIdentity({
    provider: "keycloak",
    options: { redirectTo: `${siteUrl}/linked`, skipBrowserRedirect: true }
  })
  expect(linking.error).toBeNull()
  const { location } = await finishAt(linking.data.url ?? "", providerEmail)
  return { supabase, location }
}

const pkceClient = () => SupabaseClientSupport.pkceClient(baseUrl, anonKey)

describe("sign-in with an external provider through supabase-js (an OpenID provider as Keycloak)", () => {
  it("signInWithOAuth: the provider's sign-in makes a user with a keycloak identity; the fragment holds the session", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const started = await supabase.auth.signInWithOAuth({
      provider: "keycloak",
      options: { redirectTo: `${siteUrl}/welcome`, skipBrowserRedirect: true }
    })
    expect(started.error).toBeNull()
    const email = freshEmail()
    const { location } = await signInAt(started.data.url ?? "", email)
    expect(`${location.origin}${location.pathname}`).toBe(`${siteUrl}/welcome`)
    const fragment = new URLSearchParams(location.hash.slice(1))
    expect(fragment.get("token_type")).toBe("bearer")
    expect(fragment.get("provider_token")).toBeTruthy()
    expect(fragment.get("provider")).toBe("keycloak")
    const user = await supabase.auth.getUser(fragment.get("access_token") ?? "")
    expect(user.error).toBeNull()
    expect(user.data.user?.email).toBe(email)
    expect(user.data.user?.email_confirmed_at).toBeTruthy()
    expect(user.data.user?.app_metadata).toMatchObject({ provider: "keycloak", providers: ["keycloak"] })
    expect(user.data.user?.identities?.map((identity) => identity.provider)).toEqual(["keycloak"])

    // The same person again: the same user, no second identity.
    const again = await supabase.auth.signInWithOAuth({
      provider: "keycloak",
      options: { skipBrowserRedirect: true }
    })
    const second = await signInAt(again.data.url ?? "", email)
    const token = new URLSearchParams(second.location.hash.slice(1)).get("access_token") ?? ""
    const same = await supabase.auth.getUser(token)
    expect(same.data.user?.id).toBe(user.data.user?.id)
    expect(same.data.user?.identities).toHaveLength(1)
  })

  it("the PKCE flow: the callback hands the application a code that exchangeCodeForSession redeems", async () => {
    const supabase = pkceClient()
    const started = await supabase.auth.signInWithOAuth({
      provider: "keycloak",
      options: { redirectTo: `${siteUrl}/auth/callback`, skipBrowserRedirect: true }
    })
    expect(new URL(started.data.url ?? "").searchParams.get("code_challenge")).toBeTruthy()
    const email = freshEmail()
    const { location } = await signInAt(started.data.url ?? "", email)
    expect(location.hash).toBe("")
    const code = location.searchParams.get("code") ?? ""
    const exchanged = await supabase.auth.exchangeCodeForSession(code)
    expect(exchanged.error).toBeNull()
    expect(exchanged.data.user?.email).toBe(email)
    // The provider's token rides with the exchange's answer, as with Supabase Auth; the flow
    // state kept it sealed under the code until then.
    expect(exchanged.data.session?.provider_token).toEqual(expect.any(String))
    expect(exchanged.data.session?.provider_token).not.toBe("")
    expect((await supabase.auth.exchangeCodeForSession(code)).error).not.toBeNull()
  })

  it("links to the user who has the provider's verified address", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    const signedUp = await supabase.auth.signUp({ email, password: "a long enough password" })
    const started = await supabase.auth.signInWithOAuth({
      provider: "keycloak",
      options: { skipBrowserRedirect: true }
    })
    const { location } = await signInAt(started.data.url ?? "", email)
    const linked = await supabase.auth.getUser(
      new URLSearchParams(location.hash.slice(1)).get("access_token") ?? ""
    )
    expect(linked.data.user?.id).toBe(signedUp.data.user?.id)
    expect(linked.data.user?.identities?.map((identity) => identity.provider).sort()).toEqual([
      "email",
      "keycloak"
    ])
    expect(linked.data.user?.app_metadata.providers).toEqual(["email", "keycloak"])
  })

  it("refuses unknown and disabled providers without a redirect, and a state used twice", async () => {
    const unknown = await fetch(`${baseUrl}/authorize?provider=mastodon`, { redirect: "manual" })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "Unsupported provider: Provider mastodon could not be found"
    })
    const disabled = await fetch(`${baseUrl}/authorize?provider=github`, { redirect: "manual" })
    expect(await disabled.json()).toMatchObject({ msg: "Unsupported provider: provider is not enabled" })

    const started = await fetch(
      `${baseUrl}/authorize?provider=keycloak&redirect_to=${encodeURIComponent(`${siteUrl}/x`)}`,
      {
        redirect: "manual"
      }
    )
    const callback = await loginThroughForm(new URL(started.headers.get("location") ?? ""), freshEmail())
    expect((await fetch(callback, { redirect: "manual" })).status).toBe(302)
    const replayed = await fetch(callback, { redirect: "manual" })
    const location = new URL(replayed.headers.get("location") ?? "")
    expect(`${location.origin}${location.pathname}`).toBe(`${siteUrl}/`)
    expect(location.searchParams.get("error_code")).toBe("bad_oauth_state")
    expect(new URLSearchParams(location.hash.slice(1)).get("error_code")).toBe("bad_oauth_state")
  })

  it("linkIdentity adds a provider account to the signed-in user; unlinkIdentity removes it, never the last", async () => {
    // Another address at the provider: no automatic link could explain the result.
    const { supabase, location } = await signUpAndLink(freshEmail(), freshEmail())
    expect(`${location.origin}${location.pathname}`).toBe(`${siteUrl}/linked`)
    const identities = await supabase.auth.getUserIdentities()
    expect(identities.data?.identities.map((identity) => identity.provider).sort()).toEqual([
      "email",
      "keycloak"
    ])

    const keycloak = identities.data?.identities.find((identity) => identity.provider === "keycloak")
    if (keycloak === undefined) throw new Error("no keycloak identity")
    expect((await supabase.auth.unlinkIdentity(keycloak)).error).toBeNull()
    const left = await supabase.auth.getUserIdentities()
    expect(left.data?.identities.map((identity) => identity.provider)).toEqual(["email"])
    const only = left.data?.identities[0]
    if (only === undefined) throw new Error("no identity left")
    const refused = await supabase.auth.unlinkIdentity(only)
    expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({
      status: 422,
      code: "single_identity_not_deletable"
    })
  })

  it("unlinking the identity that carried the address moves the user to the other's and voids its links", async () => {
    const email = freshEmail()
    const providerEmail = freshEmail()
    const { supabase } = await signUpAndLink(email, providerEmail)
    const admin = SupabaseClientSupport.client(baseUrl, serviceKey).auth.admin
    const recovery = await admin.generateLink({ type: "recovery", email })
    expect(recovery.error).toBeNull()

    const identities = await supabase.auth.getUserIdentities()
    const own = identities.data?.identities.find((identity) => identity.provider === "email")
    if (own === undefined) throw new Error("no email identity")
    expect((await supabase.auth.unlinkIdentity(own)).error).toBeNull()
    const after = await admin.getUserById(recovery.data.user?.id ?? "")
    expect(after.data.user?.email).toBe(providerEmail)
    expect(after.data.user?.recovery_sent_at ?? null).toBeNull()
    // The link went to the address the user no longer has.
    const followed = await fetch(recovery.data.properties?.action_link ?? "", { redirect: "manual" })
    expect(Mailbox.fragmentOf(followed.headers.get("location")).get("error_code")).toBe("otp_expired")
  })

  it("a provider account linked to one user cannot be linked to another", async () => {
    const owner = SupabaseClientSupport.client(baseUrl, anonKey)
    const providerEmail = freshEmail()
    const first = await owner.auth.signInWithOAuth({
      provider: "keycloak",
      options: { skipBrowserRedirect: true }
    })
    await signInAt(first.data.url ?? "", providerEmail)

    const other = SupabaseClientSupport.client(baseUrl, anonKey)
    await other.auth.signUp({ email: freshEmail(), password: "a long enough password" })
    const linking = await other.auth.linkIdentity({
      provider: "keycloak",
      options: { redirectTo: `${siteUrl}/linked`, skipBrowserRedirect: true }
    })
    const { location } = await finishAt(linking.data.url ?? "", providerEmail)
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toMatchObject({
      error_code: "identity_already_exists",
      error_description: "Identity is already linked to another user"
    })
  })

  it("a provider's refusal goes back to the application with its error", async () => {
    const started = await fetch(
      `${baseUrl}/authorize?provider=keycloak&redirect_to=${encodeURIComponent(`${siteUrl}/x`)}`,
      {
        redirect: "manual"
      }
    )
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? ""
    const back = await fetch(
      `${baseUrl}/callback?state=${state}&error=access_denied&error_description=nope`,
      {
        redirect: "manual"
      }
    )
    const location = new URL(back.headers.get("location") ?? "")
    expect(`${location.origin}${location.pathname}`).toBe(`${siteUrl}/x`)
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toMatchObject({
      error: "access_denied",
      error_description: "nope"
    })
  })
})
