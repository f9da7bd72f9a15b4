import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { decodeJwt } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SoftwareAuthenticator } from "../../support/auth/SoftwareAuthenticator.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

/** The page origin the instance lists in `WEBAUTHN_RP_ORIGINS` (relying party `localhost`). */
const origin = "http://localhost:3000"

let scope: Scope.CloseableScope
let on = ""
let off = ""
let anonKey = ""
let serviceKey = ""

const passkeyEnv = {
  AUTHSVC_PASSKEY_ENABLED: "true",
  AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER: "3",
  AUTHSVC_RATE_LIMIT_PASSKEY: "1000000",
  AUTHSVC_WEBAUTHN_RP_ID: "localhost",
  AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "latchkey",
  AUTHSVC_WEBAUTHN_RP_ORIGINS: origin
}

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const [withPasskeys, without] = await Effect.runPromise(
    Scope.extend(
      Effect.all([AuthServerHarness.start({ env: passkeyEnv }), AuthServerHarness.start({ env: {} })]),
      scope
    )
  )
  on = withPasskeys.baseUrl
  off = without.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 90_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface Answer {
  readonly status: number
  readonly body: Record<string, unknown> & { readonly code?: unknown; readonly error_code?: unknown }
  readonly list: ReadonlyArray<Record<string, unknown>>
}

/** A call as supabase-js makes it: the API key, the bearer when given, a JSON body as text. */
const call = async (
  base: string,
  method: string,
  path: string,
  options: { readonly token?: string; readonly body?: unknown; readonly raw?: string } = {}
): Promise<Answer> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      apikey: anonKey,
      "content-type": "application/json",
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
    },
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body === undefined
        ? {}
        : { body: JSON.stringify(options.body) })
  })
  const text = await response.text()
  const parsed: unknown = text === "" ? {} : JSON.parse(text)
  return {
    status: response.status,
    body: Array.isArray(parsed) || typeof parsed !== "object" || parsed === null ? {} : Object(parsed),
    list: Array.isArray(parsed) ? parsed : []
  }
}

/** `[status, error_code]` of an answer, for refusals. */
const refusal = (answer: Answer) => [answer.status, answer.body.error_code]

/** A signed-up user's access token and id. */
const signedUp = async () => {
  const supabase = SupabaseClientSupport.client(on, anonKey)
  const { data, error } = await supabase.auth.signUp({
    email: `${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple"
  })
  if (error !== null || data.session === null || data.user === null)
    throw new Error(`sign-up failed: ${error?.message}`)
  return { token: data.session.access_token, userId: data.user.id }
}

const options = (answer: Answer) => {
  const value: unknown = answer.body.options
  if (typeof value !== "object" || value === null) throw new Error("no options")
  return Object(value)
}

/** A passkey registered over HTTP by `device` for the user of `token`: its id. */
const register = async (token: string, device: SoftwareAuthenticator) => {
  const started = await call(on, "POST", "/passkeys/registration/options", { token, body: {} })
  expect(started.status).toBe(200)
  const verified = await call(on, "POST", "/passkeys/registration/verify", {
    token,
    body: { challenge_id: started.body.challenge_id, credential: device.register(options(started)) }
  })
  expect(verified.status).toBe(200)
  return String(verified.body.id)
}

/** A sign-in challenge and `device`'s assertion for it. */
const assertion = async (device: SoftwareAuthenticator, overrides: { readonly origin?: string } = {}) => {
  const started = await call(on, "POST", "/passkeys/authentication/options", { body: {} })
  expect(started.status).toBe(200)
  return { challenge_id: started.body.challenge_id, credential: device.assert(options(started), overrides) }
}

describe("passkeys over HTTP, a software authenticator as the browser", () => {
  it("registers, lists, signs in (aal1, amr passkey), renames and deletes", async () => {
    const user = await signedUp()
    const device = new SoftwareAuthenticator({ origin })
    const started = await call(on, "POST", "/passkeys/registration/options", { token: user.token, body: {} })
    expect(started.body).toMatchObject({ challenge_id: expect.any(String), expires_at: expect.any(Number) })
    expect(options(started)).toMatchObject({
      rp: { id: "localhost", name: "latchkey" },
      user: { id: Buffer.from(user.userId).toString("base64url") },
      authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
      attestation: "none"
    })
    const verified = await call(on, "POST", "/passkeys/registration/verify", {
      token: user.token,
      body: { challenge_id: started.body.challenge_id, credential: device.register(options(started)) }
    })
    expect(verified.status).toBe(200)
    expect(Object.keys(verified.body).sort()).toEqual(["created_at", "friendly_name", "id"])
    expect(verified.body.friendly_name).toBe("Passkey")

    const signIn = await assertion(device)
    const session = await call(on, "POST", "/passkeys/authentication/verify", { body: signIn })
    expect(session.status).toBe(200)
    expect(session.body).toMatchObject({ token_type: "bearer", refresh_token: expect.any(String) })
    const claims = decodeJwt(String(session.body.access_token))
    expect([claims.sub, claims.aal, claims.amr]).toEqual([
      user.userId,
      "aal1",
      [expect.objectContaining({ method: "passkey" })]
    ])

    const listed = await call(on, "GET", "/passkeys", { token: user.token })
    expect(listed.list).toEqual([
      {
        id: verified.body.id,
        friendly_name: "Passkey",
        created_at: verified.body.created_at,
        last_used_at: expect.any(String)
      }
    ])
    const renamed = await call(on, "PATCH", `/passkeys/${verified.body.id}`, {
      token: user.token,
      body: { friendly_name: "Laptop" }
    })
    expect([renamed.status, renamed.body.friendly_name]).toEqual([200, "Laptop"])
    const deleted = await call(on, "DELETE", `/passkeys/${verified.body.id}`, { token: user.token })
    expect(deleted.status).toBe(204)
    expect((await call(on, "GET", "/passkeys", { token: user.token })).list).toEqual([])
  })

  it("refuses a replayed assertion, a wrong origin, and a counter that went backwards", async () => {
    const user = await signedUp()
    const device = new SoftwareAuthenticator({ origin })
    await register(user.token, device)
    const answer = await assertion(device)
    expect((await call(on, "POST", "/passkeys/authentication/verify", { body: answer })).status).toBe(200)
    expect(refusal(await call(on, "POST", "/passkeys/authentication/verify", { body: answer }))).toEqual([
      400,
      "webauthn_challenge_not_found"
    ])
    const elsewhere = await assertion(device, { origin: "http://localhost:4000" })
    expect(refusal(await call(on, "POST", "/passkeys/authentication/verify", { body: elsewhere }))).toEqual([
      400,
      "webauthn_verification_failed"
    ])
    const held = device.credentials[0]
    if (held !== undefined) held.counter = 1
    const stale = await assertion(device)
    expect(refusal(await call(on, "POST", "/passkeys/authentication/verify", { body: stale }))).toEqual([
      400,
      "webauthn_verification_failed"
    ])
  })

  it("answers bad input with Supabase Auth's codes, never a 500", async () => {
    const user = await signedUp()
    const verify = (body: unknown) => call(on, "POST", "/passkeys/authentication/verify", { body })
    expect(refusal(await call(on, "POST", "/passkeys/authentication/verify", { raw: "{not json" }))).toEqual([
      400,
      "bad_json"
    ])
    expect(refusal(await verify({ challenge_id: 7 }))).toEqual([400, "bad_json"])
    expect((await verify({})).body).toMatchObject({
      error_code: "validation_failed",
      msg: "challenge_id is required"
    })
    expect((await verify({ challenge_id: "x" })).body).toMatchObject({ msg: "credential is required" })
    expect((await verify({ challenge_id: "x", credential: {} })).body).toMatchObject({
      msg: "challenge_id must be a valid UUID"
    })
    expect(refusal(await verify({ challenge_id: crypto.randomUUID(), credential: {} }))).toEqual([
      400,
      "webauthn_challenge_not_found"
    ])
    const started = await call(on, "POST", "/passkeys/authentication/options", { body: {} })
    const malformed = await verify({
      challenge_id: started.body.challenge_id,
      credential: { id: ["not", "a", "credential"] }
    })
    expect([malformed.status, malformed.body.error_code, malformed.body.msg]).toEqual([
      400,
      "webauthn_verification_failed",
      "Invalid credential response"
    ])
    // A registration challenge presented at sign-in is none of sign-in's.
    const registration = await call(on, "POST", "/passkeys/registration/options", {
      token: user.token,
      body: {}
    })
    expect(refusal(await verify({ challenge_id: registration.body.challenge_id, credential: {} }))).toEqual([
      400,
      "webauthn_challenge_not_found"
    ])
    expect(
      refusal(
        await call(on, "POST", "/passkeys/registration/verify", {
          token: user.token,
          body: { challenge_id: registration.body.challenge_id, credential: "garbage" }
        })
      )
    ).toEqual([400, "webauthn_verification_failed"])
    expect(refusal(await call(on, "POST", "/passkeys/registration/options", { body: {} }))).toEqual([
      401,
      "no_authorization"
    ])
  })

  it("keeps each user to their own passkeys, and lets an administrator list and delete them", async () => {
    const owner = await signedUp()
    const other = await signedUp()
    const id = await register(owner.token, new SoftwareAuthenticator({ origin }))
    expect(
      refusal(
        await call(on, "PATCH", `/passkeys/${id}`, { token: other.token, body: { friendly_name: "Mine" } })
      )
    ).toEqual([404, "validation_failed"])
    expect(refusal(await call(on, "DELETE", `/passkeys/${id}`, { token: other.token }))).toEqual([
      404,
      "validation_failed"
    ])
    expect(refusal(await call(on, "DELETE", "/passkeys/not-a-uuid", { token: owner.token }))).toEqual([
      404,
      "validation_failed"
    ])
    expect(
      (await call(on, "PATCH", `/passkeys/${id}`, { token: owner.token, body: { friendly_name: "" } })).body
    ).toMatchObject({
      error_code: "validation_failed",
      msg: "friendly_name is required"
    })
    const admin = SupabaseClientSupport.client(on, serviceKey)
    const listed = await admin.auth.admin.passkey.listPasskeys({ userId: owner.userId })
    expect(listed.data?.map((item) => item.id)).toEqual([id])
    expect(
      refusal(await call(on, "GET", `/admin/users/${owner.userId}/passkeys`, { token: owner.token }))
    ).toEqual([403, "not_admin"])
    const removed = await admin.auth.admin.passkey.deletePasskey({ userId: other.userId, passkeyId: id })
    expect(removed.error?.status).toBe(404)
    expect(
      (await admin.auth.admin.passkey.deletePasskey({ userId: owner.userId, passkeyId: id })).error
    ).toBeNull()
    expect((await admin.auth.admin.passkey.listPasskeys({ userId: owner.userId })).data).toEqual([])
  })

  it("refuses a fourth passkey at PASSKEY_MAX_PASSKEYS_PER_USER=3", async () => {
    const user = await signedUp()
    for (let i = 0; i < 3; i++) await register(user.token, new SoftwareAuthenticator({ origin }))
    const fourth = await call(on, "POST", "/passkeys/registration/options", { token: user.token, body: {} })
    expect([fourth.status, fourth.body.error_code, fourth.body.msg]).toEqual([
      422,
      "too_many_passkeys",
      "Maximum number of passkeys reached"
    ])
  })

  it("answers 404 passkey_disabled on every /passkeys route while PASSKEY_ENABLED is off, and says so in /settings", async () => {
    for (const [method, path] of [
      ["POST", "/passkeys/authentication/options"],
      ["POST", "/passkeys/authentication/verify"],
      ["POST", "/passkeys/registration/options"],
      ["POST", "/passkeys/registration/verify"],
      ["GET", "/passkeys"],
      ["PATCH", `/passkeys/${crypto.randomUUID()}`],
      ["DELETE", `/passkeys/${crypto.randomUUID()}`]
    ] as const) {
      const answer = await call(off, method, path, method === "GET" ? {} : { raw: "{not json" })
      expect([method, path, answer.status, answer.body.error_code, answer.body.msg]).toEqual([
        method,
        path,
        404,
        "passkey_disabled",
        "Passkeys are disabled"
      ])
    }
    const settings = async (base: string) => (await call(base, "GET", "/settings")).body.passkeys_enabled
    expect([await settings(on), await settings(off)]).toEqual([true, false])
  })
})
