import { createHash, randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

const clientId = "native-app"

let scope: Scope.CloseableScope
let issuer = ""
let server: Server
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]
let baseUrl = ""
let anonKey = ""

/** A provider as its SDK appears to our service: an OpenID discovery document and its keys. */
const startIssuer = async () => {
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  signingKey = privateKey
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" }
  server = createServer((request, response) => {
    const body =
      request.url === "/.well-known/openid-configuration"
        ? { issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }
        : request.url === "/protocol/openid-connect/certs"
          ? { keys: [jwk] }
          : undefined
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" })
    response.end(JSON.stringify(body ?? {}))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  issuer = `http://127.0.0.1:${address.port}`
}

beforeAll(async () => {
  await startIssuer()
  scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: {
          AUTHSVC_EXTERNAL_KEYCLOAK_ENABLED: "true",
          // A web client first, then the native app: ID tokens may be for either.
          AUTHSVC_EXTERNAL_KEYCLOAK_CLIENT_ID: `web-client,${clientId}`,
          AUTHSVC_EXTERNAL_KEYCLOAK_SECRET: "not-used-by-native-sign-in",
          AUTHSVC_EXTERNAL_KEYCLOAK_URL: issuer,
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1",
          AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED: "true"
        }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await new Promise((resolve) => server.close(resolve))
})

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex")

/** An ID token as the provider's SDK would hand the application, with `claims` over the usual. */
const idToken = (claims: Record<string, unknown> = {}, expiresIn = "10 minutes") =>
  new SignJWT({ email: `native-${randomUUID()}@example.com`, email_verified: true, name: "Ada", ...claims })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(issuer)
    .setAudience(typeof claims.aud === "string" || Array.isArray(claims.aud) ? claims.aud : clientId)
    .setSubject(randomUUID())
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(signingKey)

describe("signInWithIdToken through supabase-js: ID tokens checked against the provider's keys", () => {
  it("a valid token with its nonce signs in and makes the user with a keycloak identity", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const nonce = randomUUID()
    const email = `native-${randomUUID()}@example.com`
    const token = await idToken({ email, nonce: sha256Hex(nonce) })
    const signedIn = await supabase.auth.signInWithIdToken({ provider: "keycloak", token, nonce })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.email).toBe(email)
    expect(signedIn.data.user?.email_confirmed_at).toBeTruthy()
    expect(signedIn.data.user?.identities?.map((identity) => identity.provider)).toEqual(["keycloak"])
    expect(signedIn.data.session?.access_token).toBeTruthy()
  })

  it("refuses another audience, an expired token, a wrong or missing nonce, and a provider that is off", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const messageOf = async (attempt: ReturnType<typeof supabase.auth.signInWithIdToken>) =>
      SupabaseClientSupport.apiError((await attempt).error).message
    expect(
      await messageOf(
        supabase.auth.signInWithIdToken({
          provider: "keycloak",
          token: await idToken({ aud: "someone-else" })
        })
      )
    ).toBe("Unacceptable audience in id_token: [someone-else]")
    expect(
      await messageOf(
        supabase.auth.signInWithIdToken({ provider: "keycloak", token: await idToken({}, "-1 minute") })
      )
    ).toBe("Bad ID token")
    const nonced = await idToken({ nonce: sha256Hex("the right nonce") })
    expect(
      await messageOf(
        supabase.auth.signInWithIdToken({ provider: "keycloak", token: nonced, nonce: "another nonce" })
      )
    ).toBe("Nonces mismatch")
    expect(await messageOf(supabase.auth.signInWithIdToken({ provider: "keycloak", token: nonced }))).toBe(
      "Passed nonce and nonce in id_token should either both exist or not."
    )
    // A provider that is off is named by its issuer; one whose ID tokens are never taken is
    // "not allowed"; Apple's issuer is read from the token and must be Apple's.
    expect(await messageOf(supabase.auth.signInWithIdToken({ provider: "google", token: nonced }))).toBe(
      'Provider (issuer "https://accounts.google.com") is not enabled'
    )
    expect(await messageOf(supabase.auth.signInWithIdToken({ provider: "github", token: nonced }))).toBe(
      'Custom OIDC provider "github" not allowed'
    )
    expect(await messageOf(supabase.auth.signInWithIdToken({ provider: "apple", token: nonced }))).toBe(
      "Detected ID token issuer is not an Apple ID token issuer"
    )
    expect(await messageOf(supabase.auth.signInWithIdToken({ provider: "apple", token: "not-a-jwt" }))).toBe(
      "Unable to detect issuer in ID token for Apple provider"
    )
    expect(
      await messageOf(supabase.auth.signInWithIdToken({ provider: "custom:nobody", token: nonced }))
    ).toBe('Custom provider "custom:nobody" not found')
  })

  it("answers a wrong nonce and a foreign audience with Supabase Auth's OAuth errors", async () => {
    const post = async (body: Record<string, string>) => {
      const response = await fetch(`${baseUrl}/token?grant_type=id_token`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      return { status: response.status, body: await response.json() }
    }
    const nonced = await idToken({ nonce: sha256Hex("the right nonce") })
    expect(await post({ provider: "keycloak", id_token: nonced, nonce: "another nonce" })).toEqual({
      status: 400,
      body: { error: "invalid nonce", error_description: "Nonces mismatch" }
    })
    expect(await post({ provider: "keycloak", id_token: await idToken({ aud: ["one", "two"] }) })).toEqual({
      status: 400,
      body: { error: "invalid request", error_description: "Unacceptable audience in id_token: [one two]" }
    })
  })

  it("linkIdentity({ provider, token }) links the token's identity to the signed-in user", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = `native-${randomUUID()}@example.com`
    const signedUp = await supabase.auth.signUp({ email, password: "correct horse battery staple" })
    expect(signedUp.error).toBeNull()
    // The provider's account has another address: only the link can explain the result.
    const token = await idToken()
    const linked = await supabase.auth.linkIdentity({ provider: "keycloak", token })
    expect(linked.error).toBeNull()
    expect(linked.data.user?.id).toBe(signedUp.data.user?.id)
    expect(linked.data.user?.email).toBe(email)
    expect(linked.data.user?.identities?.map((identity) => identity.provider).sort()).toEqual([
      "email",
      "keycloak"
    ])
    // supabase-js keeps the session the link answered with.
    expect((await supabase.auth.getUser()).data.user?.app_metadata.providers).toEqual(["email", "keycloak"])
    const signedIn = await SupabaseClientSupport.client(baseUrl, anonKey).auth.signInWithIdToken({
      provider: "keycloak",
      token
    })
    expect(signedIn.data.user?.id).toBe(signedUp.data.user?.id)

    const other = SupabaseClientSupport.client(baseUrl, anonKey)
    await other.auth.signUp({
      email: `native-${randomUUID()}@example.com`,
      password: "another long password"
    })
    expect(
      SupabaseClientSupport.apiError((await other.auth.linkIdentity({ provider: "keycloak", token })).error)
    ).toEqual({
      status: 422,
      code: "identity_already_exists",
      message: "Identity is already linked to another user"
    })

    const anonymous = await fetch(`${baseUrl}/token?grant_type=id_token`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ provider: "keycloak", id_token: await idToken(), link_identity: true })
    })
    expect({ status: anonymous.status, body: await anonymous.json() }).toEqual({
      status: 400,
      body: {
        error: "invalid request",
        error_description: "Linking requires a valid user access token in Authorization"
      }
    })
  })

  it("a request naming only the issuer and a client id finds the provider by its issuer", async () => {
    const email = `native-${randomUUID()}@example.com`
    const post = async (body: Record<string, string>) => {
      const response = await fetch(`${baseUrl}/token?grant_type=id_token`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      return { status: response.status, body: await response.json() }
    }
    const signedIn = await post({ id_token: await idToken({ email }), issuer, client_id: clientId })
    expect(signedIn).toEqual({
      status: 200,
      body: expect.objectContaining({
        user: expect.objectContaining({
          email,
          app_metadata: expect.objectContaining({ provider: "keycloak" })
        })
      })
    })
    const unknown = await post({
      id_token: await idToken({ email }),
      issuer: "https://issuer.example.com",
      client_id: clientId
    })
    expect(unknown).toEqual({
      status: 400,
      body: expect.objectContaining({
        error_code: "validation_failed",
        msg: 'Custom OIDC provider "" not allowed'
      })
    })
  })
})
