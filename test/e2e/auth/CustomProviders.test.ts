import type { SupabaseClient } from "@supabase/supabase-js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as ProviderUpstream from "../../support/auth/ProviderUpstream.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { freePort } from "../../support/FreePort.js"
import * as FakeProvider from "../../support/idp/FakeProvider.js"
import { loginThroughForm } from "../../support/oauth/DevUpstreamLogin.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * Custom providers (`/admin/custom-providers`) end to end: an operator adds an OpenID provider
 * (oidc-provider, a real one) and a plain OAuth 2.0 provider (a local fake) with supabase-js's
 * admin API, and users sign in with them through supabase-js — by the redirect flow and, for
 * the OpenID one, with an ID token — as `custom:<name>` providers.
 */

const siteUrl = "http://localhost:3000"
const clientId = "latchkey-custom"
const clientSecret = "a-client-secret-for-the-custom-provider"

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""
let admin: SupabaseClient
let issuer = ""
let fake: FakeProvider.FakeProvider
let databaseUrl: Option.Option<string> = Option.none()
let providersTable = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const port = await Effect.runPromise(freePort)
  const upstream = await ProviderUpstream.start(scope, { authPort: port, clientId, clientSecret })
  issuer = upstream.issuer.origin
  fake = await Effect.runPromise(Scope.extend(FakeProvider.start(), scope))
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        port,
        env: {
          AUTHSVC_CUSTOM_OAUTH_MAX_PROVIDERS: "50",
          // Both providers are on loopback, which the outbound guard refuses unless listed.
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1",
          // Client secrets sealed at rest, as a Supabase deployment may configure it: every
          // sign-in below presents a secret the service had to open first.
          GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPT: "true",
          GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-1",
          GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64url")
        }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  databaseUrl = running.databaseUrl
  providersTable = `auth."${running.config.db.namespace}custom_oauth_providers"`
  anonKey = await SupabaseClientSupport.apiKey("anon")
  admin = SupabaseClientSupport.client(baseUrl, await SupabaseClientSupport.apiKey("service_role"))
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const freshEmail = () => `person-${crypto.randomUUID()}@example.com`

/**
 * `signInWithIdToken` with an ID token the fake issues for `aud`, as the OpenID provider
 * `fakeOpenIdProvider` serves: the answer, and the email in the token.
 */
const idTokenSignIn = async (supabase: SupabaseClient, provider: string, aud: string, sub: string) => {
  const email = freshEmail()
  const token = await fake.idToken({ iss: fake.origin.origin, aud, sub, email, email_verified: true })
  return { email, signedIn: await supabase.auth.signInWithIdToken({ provider, token }) }
}

/** The local fake as an OpenID provider: its discovery document and keys; its issuer. */
const fakeOpenIdProvider = () => {
  const fakeIssuer = fake.origin.origin
  fake.routes.set("GET /.well-known/openid-configuration", () => ({
    json: {
      issuer: fakeIssuer,
      authorization_endpoint: `${fakeIssuer}/authorize`,
      token_endpoint: `${fakeIssuer}/token`,
      jwks_uri: `${fakeIssuer}/jwks`,
      response_types_supported: ["code"]
    }
  }))
  fake.routes.set("GET /jwks", () => ({ json: fake.jwks }))
  return fakeIssuer
}

const createOidc = (identifier: string, extra: Record<string, unknown> = {}) =>
  admin.auth.admin.customProviders.createProvider({
    provider_type: "oidc",
    identifier,
    name: "Acme SSO",
    client_id: clientId,
    client_secret: clientSecret,
    issuer,
    ...extra
  })

/** Follows /authorize to the provider, signs in there as `email`, and returns our callback's redirect. */
const signInAt = async (authorizeUrl: string, email: string) => {
  const toProvider = await fetch(authorizeUrl, { redirect: "manual" })
  expect(toProvider.status).toBe(302)
  const callback = await loginThroughForm(new URL(toProvider.headers.get("location") ?? ""), email)
  const back = await fetch(callback, { redirect: "manual" })
  expect(back.status).toBe(302)
  return new URL(back.headers.get("location") ?? "")
}

describe("custom providers through supabase-js", () => {
  it("an OpenID provider added with the admin API signs users in as custom:<name>", async () => {
    const created = await createOidc("custom:acme", {
      scopes: ["email", "profile"],
      custom_claims_allowlist: ["locale"],
      authorization_params: { prompt: "login" }
    })
    expect(created.error).toBeNull()
    expect(created.data).toMatchObject({
      provider_type: "oidc",
      identifier: "custom:acme",
      name: "Acme SSO",
      client_id: clientId,
      scopes: ["openid", "email", "profile"],
      pkce_enabled: true,
      enabled: true,
      email_optional: false,
      issuer,
      discovery_document: { issuer, authorization_endpoint: `${issuer}/auth` }
    })
    expect(JSON.stringify(created.data)).not.toContain(clientSecret)

    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const started = await supabase.auth.signInWithOAuth({
      provider: "custom:acme",
      options: { redirectTo: `${siteUrl}/welcome`, skipBrowserRedirect: true }
    })
    expect(started.error).toBeNull()
    const toProvider = await fetch(started.data.url ?? "", { redirect: "manual" })
    const authorization = new URL(toProvider.headers.get("location") ?? "")
    expect(authorization.origin).toBe(issuer)
    expect(authorization.searchParams.get("prompt")).toBe("login")
    expect(authorization.searchParams.get("scope")).toBe("openid email profile")
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256")

    const email = freshEmail()
    const location = await signInAt(started.data.url ?? "", email)
    expect(`${location.origin}${location.pathname}`).toBe(`${siteUrl}/welcome`)
    const fragment = new URLSearchParams(location.hash.slice(1))
    expect(fragment.get("provider_token")).toBeTruthy()
    // The provider as the sign-in named it, not the kind of upstream behind it.
    expect(fragment.get("provider")).toBe("custom:acme")
    const user = await supabase.auth.getUser(fragment.get("access_token") ?? "")
    expect(user.error).toBeNull()
    expect(user.data.user?.email).toBe(email)
    expect(user.data.user?.app_metadata).toMatchObject({
      provider: "custom:acme",
      providers: ["custom:acme"]
    })
    expect(user.data.user?.identities?.map((identity) => identity.provider)).toEqual(["custom:acme"])
    expect(user.data.user?.identities?.[0]?.identity_data).toMatchObject({
      iss: issuer,
      email,
      email_verified: true
    })
  })

  // The row is read and changed over a second connection: a PostgreSQL server is needed (CI sets
  // TEST_DATABASE_URL); the embedded database admits the service's connection alone.
  it.skipIf(TestDatabase.isEmbedded("server"))(
    "a client secret is stored sealed; one sealed under a key not given refuses the sign-in",
    async () => {
      const url = Option.getOrThrow(databaseUrl)
      const storedSecret = async (identifier: string) => {
        const [row] = await Effect.runPromise(
          TestDatabase.query(url, `SELECT client_secret FROM ${providersTable} WHERE identifier = $1`, [
            identifier
          ])
        )
        return String(row?.client_secret)
      }
      expect((await createOidc("custom:sealed")).error).toBeNull()
      const sealed = await storedSecret("custom:sealed")
      expect(JSON.parse(sealed)).toMatchObject({ key_id: "key-1", alg: "aes-gcm-hkdf" })
      expect(sealed).not.toContain(clientSecret)
      // A new secret given by an update is sealed too (each seal has its own nonce).
      const updated = await admin.auth.admin.customProviders.updateProvider("custom:sealed", {
        client_secret: clientSecret
      })
      expect(updated.error).toBeNull()
      const resealed = await storedSecret("custom:sealed")
      expect(JSON.parse(resealed)).toMatchObject({ key_id: "key-1" })
      expect(resealed).not.toBe(sealed)

      // As a Supabase project's row brings it, sealed under a key this service was not given.
      const fakeIssuer = fakeOpenIdProvider()
      const created = await admin.auth.admin.customProviders.createProvider({
        provider_type: "oidc",
        identifier: "custom:foreign",
        name: "Foreign",
        client_id: "foreign-client",
        client_secret: "foreign-secret",
        issuer: fakeIssuer,
        skip_nonce_check: true
      })
      expect(created.error).toBeNull()
      const foreign = JSON.stringify({ ...JSON.parse(await storedSecret("custom:foreign")), key_id: "key-0" })
      await Effect.runPromise(
        TestDatabase.query(url, `UPDATE ${providersTable} SET client_secret = $1 WHERE identifier = $2`, [
          foreign,
          "custom:foreign"
        ])
      )
      const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
      const started = await supabase.auth.signInWithOAuth({
        provider: "custom:foreign",
        options: { redirectTo: `${siteUrl}/welcome`, skipBrowserRedirect: true }
      })
      const refused = await fetch(started.data.url ?? "", { redirect: "manual" })
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({
        error_code: "validation_failed",
        msg: "Unsupported provider: error decrypting client secret for provider custom:foreign"
      })
      // An ID token needs no client secret: it still signs in.
      const { email, signedIn } = await idTokenSignIn(
        supabase,
        "custom:foreign",
        "foreign-client",
        "foreign-1"
      )
      expect(signedIn.error).toBeNull()
      expect(signedIn.data.user?.email).toBe(email)
    }
  )

  it("lists, reads, updates and deletes providers; a disabled or deleted one signs nobody in", async () => {
    const created = await createOidc("custom:lifecycle")
    expect(created.error).toBeNull()

    const listed = await admin.auth.admin.customProviders.listProviders()
    expect(listed.error).toBeNull()
    expect(listed.data.providers.map((provider) => provider.identifier)).toContain("custom:lifecycle")
    const onlyOAuth2 = await admin.auth.admin.customProviders.listProviders({ type: "oauth2" })
    expect(onlyOAuth2.data.providers.every((provider) => provider.provider_type === "oauth2")).toBe(true)

    const read = await admin.auth.admin.customProviders.getProvider("custom:lifecycle")
    expect(read.data?.id).toBe(created.data?.id)

    const renamed = await admin.auth.admin.customProviders.updateProvider("custom:lifecycle", {
      name: "Renamed",
      enabled: false
    })
    expect(renamed.error).toBeNull()
    expect(renamed.data).toMatchObject({ name: "Renamed", enabled: false, client_id: clientId })

    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const disabled = await fetch(`${baseUrl}/authorize?provider=custom:lifecycle`, { redirect: "manual" })
    expect(disabled.status).toBe(400)
    expect(await disabled.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "Unsupported provider: custom provider custom:lifecycle is disabled"
    })

    await admin.auth.admin.customProviders.updateProvider("custom:lifecycle", { enabled: true })
    const again = await supabase.auth.signInWithOAuth({
      provider: "custom:lifecycle",
      options: { skipBrowserRedirect: true }
    })
    const enabled = await fetch(again.data.url ?? "", { redirect: "manual" })
    expect(enabled.status).toBe(302)

    const deleted = await admin.auth.admin.customProviders.deleteProvider("custom:lifecycle")
    expect(deleted.error).toBeNull()
    const gone = await admin.auth.admin.customProviders.getProvider("custom:lifecycle")
    expect(SupabaseClientSupport.apiError(gone.error)).toEqual({
      status: 404,
      code: "custom_provider_not_found",
      message: "Custom OAuth provider not found"
    })
    const afterwards = await fetch(`${baseUrl}/authorize?provider=custom:lifecycle`, { redirect: "manual" })
    expect(afterwards.status).toBe(400)
    expect(await afterwards.json()).toMatchObject({
      msg: "Unsupported provider: custom provider custom:lifecycle not found"
    })
  })

  it("a plain OAuth 2.0 provider: who signed in comes from its userinfo endpoint, through the mapping", async () => {
    fake.routes.set("POST /token", () => ({
      json: { access_token: "fake-access", token_type: "bearer", refresh_token: "fake-refresh" }
    }))
    fake.routes.set("GET /userinfo", (request) =>
      request.headers.authorization === "Bearer fake-access"
        ? { json: { id: 4242, mail: "oauth2-person@example.com", verified: true, display: "Oh Two" } }
        : { status: 401, json: {} }
    )
    const plain = {
      provider_type: "oauth2" as const,
      identifier: "custom:plain",
      name: "Plain OAuth",
      client_id: "plain-client",
      client_secret: "plain-secret",
      authorization_url: `${fake.origin.origin}/authorize`,
      token_url: `${fake.origin.origin}/token`,
      userinfo_url: `${fake.origin.origin}/userinfo`,
      scopes: ["read:user"]
    }
    const created = await admin.auth.admin.customProviders.createProvider({
      ...plain,
      attribute_mapping: { sub: "id", email: "mail", email_verified: "verified", name: "display" }
    })
    // `email_verified` is a protected target: the mapping may not vouch for an address.
    expect(SupabaseClientSupport.apiError(created.error)).toEqual({
      status: 400,
      code: "validation_failed",
      message: "Cannot map to protected system field: email_verified"
    })
    const accepted = await admin.auth.admin.customProviders.createProvider({
      ...plain,
      email_optional: true,
      attribute_mapping: { sub: "id", email: "mail", name: "display" }
    })
    expect(accepted.error).toBeNull()
    expect(accepted.data).toMatchObject({
      provider_type: "oauth2",
      userinfo_url: `${fake.origin.origin}/userinfo`
    })
    expect(accepted.data?.discovery_document).toBeUndefined()

    const started = await fetch(`${baseUrl}/authorize?provider=custom:plain&redirect_to=${siteUrl}/in`, {
      redirect: "manual"
    })
    const authorization = new URL(started.headers.get("location") ?? "")
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${fake.origin.origin}/authorize`)
    expect(authorization.searchParams.get("scope")).toBe("read:user")
    const state = authorization.searchParams.get("state") ?? ""
    const back = await fetch(`${baseUrl}/callback?code=the-code&state=${encodeURIComponent(state)}`, {
      redirect: "manual"
    })
    expect(back.status).toBe(302)
    const location = new URL(back.headers.get("location") ?? "")
    const fragment = new URLSearchParams(location.hash.slice(1))
    expect(fragment.get("provider_token")).toBe("fake-access")
    expect(fragment.get("provider_refresh_token")).toBe("fake-refresh")
    const [token] = fake.sent("POST /token")
    expect(token?.form.get("code")).toBe("the-code")
    expect(token?.form.get("redirect_uri")).toBe(`${baseUrl}/callback`)
    expect(token?.headers.authorization).toBe(
      `Basic ${Buffer.from("plain-client:plain-secret").toString("base64")}`
    )

    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const user = await supabase.auth.getUser(fragment.get("access_token") ?? "")
    expect(user.data.user?.identities?.[0]).toMatchObject({
      provider: "custom:plain",
      id: "4242",
      identity_data: {
        sub: "4242",
        provider_id: "4242",
        name: "Oh Two",
        full_name: "Oh Two",
        email: "oauth2-person@example.com",
        // The provider's `verified` was not mapped: the address is not taken as verified.
        email_verified: false
      }
    })
  })

  it("signInWithIdToken takes an ID token of a custom OpenID provider, for its client ids only", async () => {
    const fakeIssuer = fakeOpenIdProvider()
    const created = await admin.auth.admin.customProviders.createProvider({
      provider_type: "oidc",
      identifier: "custom:native",
      name: "Native",
      client_id: "web-client",
      client_secret: "web-secret",
      issuer: fakeIssuer,
      acceptable_client_ids: ["ios-client"],
      skip_nonce_check: true
    })
    expect(created.error).toBeNull()
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const { email, signedIn } = await idTokenSignIn(supabase, "custom:native", "ios-client", "native-1")
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.email).toBe(email)
    expect(signedIn.data.user?.app_metadata.provider).toBe("custom:native")

    const otherAudience = await fake.idToken({ iss: fakeIssuer, aud: "someone-else", sub: "native-2", email })
    const refused = await supabase.auth.signInWithIdToken({ provider: "custom:native", token: otherAudience })
    expect(refused.error?.status).toBe(400)
  })
})

describe("custom providers: refusals", () => {
  const base = {
    provider_type: "oidc" as const,
    name: "Refused",
    client_id: clientId,
    client_secret: clientSecret,
    issuer: "https://issuer.example.com"
  }

  it("each class of bad body gets Supabase Auth's validation_failed message, and nothing is saved", async () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [
        { ...base, provider_type: "saml", identifier: "custom:x1" },
        "provider_type must be either 'oauth2' or 'oidc'"
      ],
      [{ ...base, identifier: "acme" }, "identifier must start with 'custom:' prefix, e.g. 'custom:acme'"],
      [
        { ...base, identifier: "custom:Upper" },
        "identifier must be 2 to 50 characters of lower-case letters, digits, ':' and '-', starting and ending with a letter or digit"
      ],
      [{ ...base, identifier: "custom:x2", name: "" }, "name is required"],
      [{ ...base, identifier: "custom:x3", client_secret: "" }, "client_secret is required"],
      [{ ...base, identifier: "custom:x4", issuer: "" }, "issuer is required for OIDC providers"],
      [
        { ...base, provider_type: "oauth2", identifier: "custom:x5", issuer: undefined },
        "authorization_url is required for OAuth2 providers"
      ],
      [
        { ...base, identifier: "custom:x6", authorization_params: { redirect_uri: "https://evil.example" } },
        "Cannot override reserved OAuth parameter: redirect_uri"
      ],
      [
        { ...base, identifier: "custom:x7", authorization_params: { prompt: 1 } },
        'Authorization parameter "prompt" must be a string'
      ],
      [
        { ...base, identifier: "custom:x8", attribute_mapping: { role: "groups" } },
        "Cannot map to protected system field: role"
      ],
      [
        { ...base, identifier: "custom:x9", custom_claims_allowlist: [" "] },
        "custom_claims_allowlist entries must be non-empty strings"
      ],
      [{ ...base, identifier: "custom:x10", issuer: "http://issuer.example.com" }, "URL must use HTTPS"],
      [{ ...base, identifier: "custom:x11", issuer: "not a url" }, "Invalid URL format"]
    ]
    for (const [body, message] of cases) {
      const response = await fetch(`${baseUrl}/admin/custom-providers`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await SupabaseClientSupport.apiKey("service_role")}`,
          "content-type": "application/json"
        },
        body: JSON.stringify(body)
      })
      expect(response.status, message).toBe(400)
      expect(await response.json()).toMatchObject({
        code: 400,
        error_code: "validation_failed",
        msg: message
      })
    }
    const listed = await admin.auth.admin.customProviders.listProviders()
    expect(
      listed.data.providers.map((provider) => provider.identifier).filter((id) => /^custom:x\d+$/.test(id))
    ).toEqual([])
  })

  it("an issuer at a private address is refused before any call; a taken identifier is a conflict", async () => {
    const privateIssuer = await createOidc("custom:private", { issuer: "https://10.1.2.3" })
    expect(SupabaseClientSupport.apiError(privateIssuer.error)).toMatchObject({
      status: 400,
      code: "validation_failed"
    })
    expect(privateIssuer.error?.message).toMatch(/^URL cannot be used: /)

    const first = await createOidc("custom:twice")
    expect(first.error).toBeNull()
    const second = await createOidc("custom:twice")
    expect(SupabaseClientSupport.apiError(second.error)).toEqual({
      status: 400,
      code: "conflict",
      message: "A custom OAuth provider with this identifier already exists"
    })
  })

  it("a discovery document naming another issuer is refused", async () => {
    const moved = await createOidc("custom:moved", {
      discovery_url: `${issuer}/.well-known/openid-configuration`,
      issuer: `${issuer}/elsewhere`
    })
    expect(SupabaseClientSupport.apiError(moved.error)).toMatchObject({
      status: 400,
      code: "validation_failed"
    })
    expect(moved.error?.message).toContain("issuer mismatch")
  })

  it("a discovery document naming endpoints the outbound guard would refuse, or no issuer, is refused", async () => {
    const documentAt = (path: string, body: Record<string, unknown>) =>
      fake.routes.set(`GET ${path}`, () => ({ json: body }))
    const fakeIssuer = `${fake.origin.origin}/tenant`
    const endpoints = {
      issuer: fakeIssuer,
      authorization_endpoint: `${fakeIssuer}/authorize`,
      token_endpoint: `${fakeIssuer}/token`,
      jwks_uri: `${fakeIssuer}/jwks`
    }
    const cases: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
      [
        "/private",
        { ...endpoints, token_endpoint: "https://10.0.0.7/token" },
        /^OIDC discovery document's token_endpoint: URL cannot be used: /
      ],
      [
        "/relative",
        { ...endpoints, userinfo_endpoint: "/userinfo" },
        /^OIDC discovery document's userinfo_endpoint: Invalid URL format$/
      ],
      [
        "/plain",
        { ...endpoints, jwks_uri: "http://keys.example.com/jwks" },
        /^OIDC discovery document's jwks_uri: URL must use HTTPS$/
      ],
      ["/no-issuer", { ...endpoints, issuer: undefined }, /issuer mismatch, expected ".*\/tenant" got ""$/]
    ]
    for (const [path, document, message] of cases) {
      documentAt(path, document)
      const refused = await createOidc(`custom:doc${path.replace("/", "-")}`, {
        issuer: fakeIssuer,
        discovery_url: `${fake.origin.origin}${path}`
      })
      expect(SupabaseClientSupport.apiError(refused.error), path).toMatchObject({
        status: 400,
        code: "validation_failed"
      })
      expect(refused.error?.message, path).toMatch(message)
    }
  })

  it("an update's client_id longer than the table takes is refused, not a failure", async () => {
    expect((await createOidc("custom:long")).error).toBeNull()
    const updated = await admin.auth.admin.customProviders.updateProvider("custom:long", {
      client_id: "c".repeat(513)
    })
    expect(SupabaseClientSupport.apiError(updated.error)).toEqual({
      status: 400,
      code: "validation_failed",
      message: "client_id must be at most 512 characters"
    })
  })

  it("only admins may call the API; an unknown type filter is refused", async () => {
    const anonymous = SupabaseClientSupport.client(baseUrl, anonKey)
    const refused = await anonymous.auth.admin.customProviders.listProviders()
    expect(refused.error?.status).toBe(403)
    const badType = await fetch(`${baseUrl}/admin/custom-providers?type=saml`, {
      headers: { authorization: `Bearer ${await SupabaseClientSupport.apiKey("service_role")}` }
    })
    expect(badType.status).toBe(400)
    expect(await badType.json()).toMatchObject({ msg: "type must be either 'oauth2' or 'oidc'" })
  })
})
