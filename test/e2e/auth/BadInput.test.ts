import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as RawHttp from "../../support/RawHttp.js"

let scope: Scope.CloseableScope
let baseUrl = ""
let serviceKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  baseUrl = (
    await Effect.runPromise(
      Scope.extend(
        // Manual linking on, so that GET /user/identities/authorize reads its PKCE parameters; a
        // custom provider on loopback (never called), so that GET /authorize does.
        AuthServerHarness.start({
          env: {
            AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED: "true",
            AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1"
          }
        }),
        scope
      )
    )
  ).baseUrl
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const call = async (
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {}
) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body })
  })
  const text = await response.text()
  const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json")
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: isJson && text !== "" ? JSON.parse(text) : {}
  }
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  call("POST", path, { body, headers })

const admin = () => ({ authorization: `Bearer ${serviceKey}` })

/** Supabase Auth's legacy error body, as clients without the version header read it. */
const legacy = (status: number, code: string) => ({ code: status, error_code: code, msg: expect.any(String) })

describe("bad input to the auth service: Supabase Auth's 4xx, never a 5xx", () => {
  it("malformed JSON and JSON of the wrong shape are bad_json", async () => {
    for (const body of [
      "{",
      "[1,2]",
      '"text"',
      '{"email": 42, "password": "x"}',
      '{"data": "not an object"}'
    ]) {
      const answer = await post("/signup", body)
      expect(answer.status, body).toBe(400)
      expect(answer.body, body).toEqual(legacy(400, "bad_json"))
      expect(answer.headers.get("x-sb-error-code")).toBe("bad_json")
    }
  })

  it("a JSON body nested past the limit, or holding a NUL, is refused before it is read", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
    expect((await post("/signup", deep)).status).toBe(400)
    expect(
      (await post("/signup", JSON.stringify({ email: "a\u0000b@example.com", password: "secret123" }))).status
    ).toBe(400)
  })

  it("a body over 1 MiB is 413 and headers over 1 MiB 431, as in Supabase Auth; under, both are read", async () => {
    const answer = await post("/signup", JSON.stringify({ data: { blob: "x".repeat(1024 * 1024) } }))
    expect(answer.status).toBe(413)
    expect(answer.body).toMatchObject({
      error_code: "request_entity_too_large",
      msg: "Request body too large (max 1048576 bytes)"
    })
    // An anonymous sign-up (no address) carrying 300 KiB of metadata is taken whole.
    const under = await post("/signup", JSON.stringify({ data: { blob: "x".repeat(300 * 1024) } }))
    expect(under.status).toBe(200)
    expect(JSON.stringify(under.body).length).toBeGreaterThan(300 * 1024)
    // Its access token carries that metadata: a bearer header of some 400 KiB, which Supabase
    // Auth (Go's 1 MiB of headers) takes, as must this service.
    const accessToken = String(Reflect.get(Object(under.body), "access_token"))
    expect(accessToken.length).toBeGreaterThan(300 * 1024)
    const user = await call("GET", "/user", { headers: { authorization: `Bearer ${accessToken}` } })
    expect(user.status).toBe(200)
    const over = await call("GET", "/user", {
      headers: { authorization: `Bearer ${"x".repeat(1024 * 1024)}` }
    })
    expect(over.status).toBe(431)
  })

  it("missing fields and invalid addresses are validation_failed, in Supabase Auth's words", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [JSON.stringify({ email: "a@example.com" }), "Signup requires a valid password"],
      [
        JSON.stringify({ email: "not-an-email", password: "secret123" }),
        "Unable to validate email address: invalid format"
      ],
      [
        JSON.stringify({ phone: "12ab", password: "secret123" }),
        "Invalid phone number format (E.164 required)"
      ],
      [
        JSON.stringify({ email: "a@example.com", phone: "+15550001111", password: "secret123" }),
        "Only an email address or phone number should be provided on signup."
      ],
      [
        JSON.stringify({
          email: "a@example.com",
          password: "secret123",
          code_challenge: "short",
          code_challenge_method: "s256"
        }),
        "code challenge has to be between 43 and 128 characters"
      ]
    ]
    for (const [body, message] of cases) {
      const answer = await post("/signup", body)
      expect(answer.status, body).toBe(400)
      expect(answer.body, body).toEqual({ code: 400, error_code: "validation_failed", msg: message })
    }
    // An empty address where one is needed: Supabase Auth's `validateEmail` words.
    for (const [path, body] of [
      ["/invite", { email: "" }],
      ["/admin/generate_link", { type: "magiclink", email: "" }]
    ] as const) {
      const answer = await post(path, JSON.stringify(body), admin())
      expect(answer.status, path).toBe(400)
      expect(answer.body, path).toEqual({
        code: 400,
        error_code: "validation_failed",
        msg: "An email address is required"
      })
    }
  })

  it("texted codes, email changes and links: Supabase Auth's 4xx for each kind of bad input", async () => {
    const channel =
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider."
    const cases: ReadonlyArray<readonly [string, string, number, string, string]> = [
      [
        "/otp",
        JSON.stringify({ phone: "not a number" }),
        400,
        "validation_failed",
        "Invalid phone number format (E.164 required)"
      ],
      [
        "/otp",
        JSON.stringify({ phone: "+15555550100", channel: "telegram" }),
        400,
        "validation_failed",
        channel
      ],
      [
        "/signup",
        JSON.stringify({ phone: "+15555550100", password: "secret123", channel: "fax" }),
        400,
        "validation_failed",
        channel
      ],
      [
        "/verify",
        JSON.stringify({ type: "sms", token: "123456" }),
        400,
        "validation_failed",
        "Only an email address or phone number should be provided on verify"
      ],
      [
        "/verify",
        JSON.stringify({ type: "sms", token: "123456", phone: "+1 (555) x" }),
        400,
        "validation_failed",
        "Invalid phone number format (E.164 required)"
      ],
      [
        "/verify",
        JSON.stringify({ type: "phone_change", token: "123456", phone: "+15555550100" }),
        403,
        "otp_expired",
        "Token has expired or is invalid"
      ],
      [
        "/verify",
        JSON.stringify({ type: "email_change", token: "123456", email: "nobody@example.com" }),
        403,
        "otp_expired",
        "Token has expired or is invalid"
      ],
      [
        "/verify",
        JSON.stringify({ type: "email_change", token_hash: "lkv_not-a-token" }),
        403,
        "otp_expired",
        "Email link is invalid or has expired"
      ],
      [
        "/resend",
        JSON.stringify({ type: "email_change" }),
        400,
        "validation_failed",
        "Type provided requires an email address"
      ],
      [
        "/resend",
        JSON.stringify({ type: "phone_change", phone: "12ab" }),
        400,
        "validation_failed",
        "Invalid phone number format (E.164 required)"
      ]
    ]
    for (const [path, body, status, code, message] of cases) {
      const answer = await post(path, body)
      expect(answer.status, `${path} ${body}`).toBe(status)
      expect(answer.body, `${path} ${body}`).toEqual({ code: status, error_code: code, msg: message })
    }
    // Without SMS_PROVIDER a valid number cannot be texted: 422, and nothing written.
    const noGateway = await post("/otp", JSON.stringify({ phone: "+15555550100" }))
    expect(noGateway.body).toEqual({
      code: 422,
      error_code: "sms_send_failed",
      msg: "Unable to get SMS provider"
    })
    const generated = await post(
      "/admin/generate_link",
      JSON.stringify({ type: "email_change_new", email: "nobody@example.com", new_email: "not-an-address" }),
      admin()
    )
    expect(generated.status).toBe(404)
    expect(generated.body).toMatchObject({ error_code: "user_not_found" })
  })

  it("PKCE parameters: each kind of bad value is a 400 at every endpoint that takes them", async () => {
    const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    const requiresBoth = "PKCE flow requires code_challenge_method and code_challenge"
    const length = "code challenge has to be between 43 and 128 characters"
    const characters =
      "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"
    const unsupported = "code challenge method not supported"
    const bad: ReadonlyArray<readonly [string, string, string]> = [
      ["", "s256", requiresBoth],
      [challenge, "", requiresBoth],
      [challenge, "S512", unsupported],
      [challenge.slice(0, 42), "s256", length],
      ["a".repeat(129), "S256", length],
      [`${challenge.slice(0, 42)}/`, "S256", characters]
    ]
    // Users who exist: a recovery, a resend and a magic link would each mail a link.
    const email = `pkce-${crypto.randomUUID()}@example.com`
    const created = await post(
      "/admin/users",
      JSON.stringify({ email, password: "correct horse battery staple" }),
      admin()
    )
    expect(created.status).toBe(200)
    const anonymous = await post("/signup", "{}")
    expect(anonymous.status).toBe(200)
    const bearer = { authorization: `Bearer ${anonymous.body.access_token}` }
    const provider = await post(
      "/admin/custom-providers",
      JSON.stringify({
        provider_type: "oauth2",
        identifier: "custom:pkce",
        name: "PKCE",
        client_id: "client",
        client_secret: "secret",
        authorization_url: "http://127.0.0.1:9/authorize",
        token_url: "http://127.0.0.1:9/token",
        userinfo_url: "http://127.0.0.1:9/userinfo"
      }),
      admin()
    )
    expect(provider.status, provider.text).toBe(201)
    const refusals = (codeChallenge: string, method: string) => {
      const fields = { code_challenge: codeChallenge, code_challenge_method: method }
      const query = new URLSearchParams({ provider: "custom:pkce", ...fields }).toString()
      return [
        post(
          "/signup",
          JSON.stringify({
            email: `new-${crypto.randomUUID()}@example.com`,
            password: "secret123",
            ...fields
          })
        ),
        post("/otp", JSON.stringify({ email, ...fields })),
        post("/otp", JSON.stringify({ phone: "+15555550100", ...fields })),
        post("/magiclink", JSON.stringify({ email, ...fields })),
        post("/recover", JSON.stringify({ email, ...fields })),
        post("/resend", JSON.stringify({ type: "signup", email, ...fields })),
        call("PUT", "/user", {
          headers: bearer,
          body: JSON.stringify({ email: `to-${crypto.randomUUID()}@example.com`, ...fields })
        }),
        call("GET", `/authorize?${query}`),
        call("GET", `/user/identities/authorize?${query}`, { headers: bearer })
      ]
    }
    for (const [codeChallenge, method, message] of bad) {
      const answers = await Promise.all(refusals(codeChallenge, method))
      for (const [at, answer] of answers.entries()) {
        expect(answer.status, `${at}: ${codeChallenge} ${method}`).toBe(400)
        expect(answer.body, `${at}: ${codeChallenge} ${method}`).toEqual({
          code: 400,
          error_code: "validation_failed",
          msg: message
        })
      }
    }
    // A duplicated key: the last one is read, as Supabase Auth's JSON decoder reads it.
    const duplicated = await post(
      "/recover",
      `{"email": "${email}", "code_challenge": "${challenge}", "code_challenge_method": "S256", "code_challenge_method": "S512"}`
    )
    expect(duplicated.body).toEqual({ code: 400, error_code: "validation_failed", msg: unsupported })
  })

  it("an unknown grant type and grants without their fields", async () => {
    const unknown = await post("/token?grant_type=magic", "{}")
    expect(unknown.body).toEqual({
      code: 400,
      error_code: "invalid_credentials",
      msg: "unsupported_grant_type"
    })
    const noGrant = await post("/token", "{}")
    expect(noGrant.status).toBe(400)
    const noToken = await post("/token?grant_type=refresh_token", "{}")
    expect(noToken.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "Refresh token is not valid"
    })
    const unknownToken = await post(
      "/token?grant_type=refresh_token",
      JSON.stringify({ refresh_token: "lkr_unknown" })
    )
    expect(unknownToken.body).toMatchObject({ code: 400, error_code: "refresh_token_not_found" })
    const noAddress = await post("/token?grant_type=password", JSON.stringify({ password: "x" }))
    expect(noAddress.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "missing email or phone"
    })
    const pkce = await post("/token?grant_type=pkce", "{}")
    expect(pkce.body).toMatchObject({ code: 400, error_code: "validation_failed" })
  })

  it("bearer tokens: absent, not bearer, not a JWT", async () => {
    const absent = await call("GET", "/user")
    expect(absent.status).toBe(401)
    expect(absent.body).toEqual({
      code: 401,
      error_code: "no_authorization",
      msg: "This endpoint requires a valid Bearer token"
    })
    expect((await call("GET", "/user", { headers: { authorization: "Basic abc" } })).status).toBe(401)
    const garbage = await call("GET", "/user", { headers: { authorization: "Bearer abc.def.ghi" } })
    expect(garbage.status).toBe(403)
    expect(garbage.body).toMatchObject({ error_code: "bad_jwt" })
    // A token of the right key for another audience.
    const created = await call("POST", "/admin/users", {
      headers: admin(),
      body: JSON.stringify({ email: `${crypto.randomUUID()}@example.com` })
    })
    const foreign = await new SignJWT({ sub: created.body.id, aud: "elsewhere", role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1 hour")
      .sign(new TextEncoder().encode(AuthServerHarness.jwtSecret))
    const wrongAudience = await call("GET", "/user", { headers: { authorization: `Bearer ${foreign}` } })
    expect(wrongAudience.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "Token audience doesn't match request audience"
    })
    // Public endpoints ignore the header, as Supabase Auth does (gateways put the API key there).
    expect((await call("GET", "/settings", { headers: { authorization: "Bearer abc" } })).status).toBe(200)
  })

  it("admin paths: a user id that is no UUID, an unknown user, bad paging, a bad ban", async () => {
    const notUuid = await call("GET", "/admin/users/not-a-uuid", { headers: admin() })
    expect(notUuid.body).toEqual({
      code: 404,
      error_code: "validation_failed",
      msg: "user_id must be an UUID"
    })
    const unknown = await call("GET", `/admin/users/${crypto.randomUUID()}`, { headers: admin() })
    expect(unknown.body).toEqual({ code: 404, error_code: "user_not_found", msg: "User not found" })
    for (const query of ["page=abc", "per_page=-1", "page=1.5"]) {
      const paging = await call("GET", `/admin/users?${query}`, { headers: admin() })
      expect(paging.status, query).toBe(400)
      expect(paging.body.msg, query).toMatch(/^Bad Pagination Parameters/)
    }
    const created = await call("POST", "/admin/users", {
      headers: admin(),
      body: JSON.stringify({ email: `${crypto.randomUUID()}@example.com` })
    })
    expect(created.status).toBe(200)
    const badBan = await call("PUT", `/admin/users/${created.body.id}`, {
      headers: admin(),
      body: JSON.stringify({ ban_duration: "forever" })
    })
    expect(badBan.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: 'invalid format for ban duration: time: invalid duration "forever"'
    })
    const noContact = await call("POST", "/admin/users", { headers: admin(), body: "{}" })
    expect(noContact.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "Cannot create a user without either an email or phone"
    })
  })

  it("custom-provider admin paths: bad JSON, wrong field types, no token, unknown and malformed identifiers", async () => {
    for (const body of ["{", '{"scopes": "email"}', '{"pkce_enabled": "yes"}', '{"attribute_mapping": []}']) {
      const answer = await call("POST", "/admin/custom-providers", { headers: admin(), body })
      expect(answer.status, body).toBe(400)
      expect(answer.body, body).toMatchObject({ error_code: "bad_json" })
    }
    const anonymous = await call("GET", "/admin/custom-providers")
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toMatchObject({ error_code: "no_authorization" })
    const unknown = await call("GET", "/admin/custom-providers/custom%3Anobody", { headers: admin() })
    expect(unknown.body).toEqual({
      code: 404,
      error_code: "custom_provider_not_found",
      msg: "Custom OAuth provider not found"
    })
    const unprefixed = await call("DELETE", "/admin/custom-providers/nobody", { headers: admin() })
    expect(unprefixed.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "identifier must start with 'custom:' prefix, e.g. 'custom:nobody'"
    })
    // A NUL in a path parameter is refused before anything looks it up: PostgreSQL stores none.
    for (const method of ["GET", "PUT", "DELETE"]) {
      const nul = await call(method, "/admin/custom-providers/custom:nobody%00", {
        headers: admin(),
        ...(method === "PUT" ? { body: "{}" } : {})
      })
      expect(nul.body, method).toEqual({
        code: 400,
        error_code: "bad_json",
        msg: "the path holds a NUL character"
      })
    }
    const update = await call("PUT", "/admin/custom-providers/custom:nobody", {
      headers: admin(),
      body: JSON.stringify({ authorization_params: { nonce: "fixed" } })
    })
    expect(update.body).toEqual({
      code: 400,
      error_code: "validation_failed",
      msg: "Cannot override reserved OAuth parameter: nonce"
    })
  })

  it("takes a request target in absolute form as its path (RFC 9112 §3.2.2)", async () => {
    const absolute = await RawHttp.send(baseUrl, { method: "GET", path: `${baseUrl}/health` })
    expect(absolute.status).toBe(200)
    expect(JSON.parse(absolute.body)).toMatchObject({ name: "latchkey-auth" })
    const withQuery = await RawHttp.send(baseUrl, { method: "GET", path: `${baseUrl}?x=1` })
    expect(withQuery.status).toBe(404)
  })

  it("answers in the newer shape, with the version header, to a client that asks for it", async () => {
    const answer = await post(
      "/token?grant_type=password",
      JSON.stringify({ email: "nobody@example.com", password: "x" }),
      {
        "x-supabase-api-version": "2024-01-01"
      }
    )
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ code: "invalid_credentials", message: "Invalid login credentials" })
    expect(answer.headers.get("x-supabase-api-version")).toBe("2024-01-01")
  })

  it("unknown paths and methods, under the gateway prefix too", async () => {
    const nowhere = await call("GET", "/nowhere")
    expect(nowhere.status).toBe(404)
    expect(nowhere.text).toBe("404 page not found\n")
    expect((await call("GET", "/auth/v1/nowhere")).status).toBe(404)
    expect((await call("DELETE", "/signup")).status).toBe(405)
    expect((await call("GET", "/auth/v1/settings")).status).toBe(200)
  })

  it("every answer carries the CORS headers, so that a browser shows it rather than a CORS error", async () => {
    const origin = { origin: "http://localhost:3000" }
    const cors = (answer: { readonly status: number; readonly headers: Headers }) => [
      answer.status,
      answer.headers.get("access-control-allow-origin"),
      answer.headers.get("access-control-expose-headers")
    ]
    const exposed = "X-Total-Count, Link, X-Supabase-Api-Version, X-Sb-Error-Code"
    expect(cors(await call("GET", "/auth/v1/nowhere", { headers: origin }))).toEqual([404, "*", exposed])
    expect(cors(await call("DELETE", "/signup", { headers: origin }))).toEqual([405, "*", exposed])
    expect(cors(await post("/signup", JSON.stringify({ email: "x".repeat(2_000_000) }), origin))).toEqual([
      413,
      "*",
      exposed
    ])
    const callback = await fetch(`${baseUrl}/callback`, { headers: origin, redirect: "manual" })
    expect(cors(callback)).toEqual([302, "*", exposed])
    // A browser's preflight of a call to a path the service does not have succeeds; the call
    // itself then gets the 404, which the application sees.
    const preflight = await call("OPTIONS", "/auth/v1/factors", {
      headers: {
        ...origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, apikey, content-type"
      }
    })
    expect(cors(preflight)).toEqual([204, "*", exposed])
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "Authorization, Content-Type, apikey, X-Client-Info, X-Supabase-Api-Version"
    )
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST")
  })
})
