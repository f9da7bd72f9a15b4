import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Routes from "../../../adapters/http/auth/Routes.js"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as FirebaseHashes from "../../support/auth/FirebaseHashes.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import type * as CliProcess from "../../support/CliProcess.js"
import { brokenJson, percentEncoded, sometimes, withoutUndefined } from "../../support/FuzzParts.js"
import * as RawHttp from "../../support/RawHttp.js"

/**
 * What a fault-and-fuzz run sends the auth service, as a property: every route of the route
 * table (at the root and under the gateway's prefix) and paths that are none, called by nobody,
 * a user, an anonymous key and the service role, with JSON bodies whose fields are Supabase
 * Auth's names holding values of every type. Whatever arrives, each answer on its own must be
 * below 500 and, when it refuses, in one of Supabase Auth's shapes; the server must still serve
 * normal requests afterwards.
 */

/**
 * The account the requests act on, as placeholders in what is generated: the run signs up a new
 * account every few requests (a request may delete or sign out the last one) and puts its ids and
 * tokens in at send time, so the requests generated are the same on every run.
 */
const placeholders = {
  user: "$FUZZ_USER",
  email: "$FUZZ_EMAIL",
  factor: "$FUZZ_FACTOR",
  access: "$FUZZ_ACCESS",
  refresh: "$FUZZ_REFRESH",
  anon: "$FUZZ_ANON",
  service: "$FUZZ_SERVICE"
} as const

type Account = Record<keyof typeof placeholders, string>

const filledIn = (text: string, account: Account) =>
  text
    .replaceAll(placeholders.user, account.user)
    .replaceAll(placeholders.email, account.email)
    .replaceAll(placeholders.factor, account.factor)
    .replaceAll(placeholders.access, account.access)
    .replaceAll(placeholders.refresh, account.refresh)
    .replaceAll(placeholders.anon, account.anon)
    .replaceAll(placeholders.service, account.service)

const Legacy = Schema.Struct({ code: Schema.Number, error_code: Schema.String, msg: Schema.String })
const Current = Schema.Struct({ code: Schema.String, message: Schema.String })
const OAuth = Schema.Struct({ error: Schema.String, error_description: Schema.optional(Schema.String) })
const isRefusal = Schema.is(Schema.Union(Legacy, Current, OAuth))

const nastyText = fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "\ud800",
  "a\udfffb",
  "\ufffe",
  "\u202e",
  "<script>fuzz()</script>",
  " ",
  "",
  "__proto__",
  "../..",
  "%",
  "%ZZ",
  "null",
  "0",
  "-1",
  "1e999",
  "true",
  "x".repeat(5_000)
)

/** The kinds of one-time code and link Supabase Auth verifies. */
const otpTypes = ["signup", "invite", "magiclink", "recovery", "email_change", "email", "sms", "phone_change"]

/** Supabase Auth's own words, where a field expects one of them. */
const plausibleText = fc.constantFrom(
  "fuzz@example.com",
  "FUZZ@Example.COM",
  "a@b",
  "@",
  "fuzz@@example.com",
  "+15555550100",
  "15555550100",
  "+1",
  "123456",
  "12345678",
  "password-of-fuzz-1",
  "short",
  ...otpTypes,
  "totp",
  "phone",
  "webauthn",
  "recovery_code",
  "create",
  "request",
  "whatsapp",
  "s256",
  "S256",
  "plain",
  "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  "google",
  "github",
  "custom:fuzz",
  "oidc",
  "apple",
  "authenticated",
  "service_role",
  "supabase_admin",
  "24h",
  "none",
  "-1h",
  "876000h",
  "http://localhost:3000/welcome",
  "javascript:alert(1)",
  "https://evil.example/",
  "00000000-0000-0000-0000-000000000000",
  "not-a-uuid",
  "aal1",
  "aal2",
  "local",
  "global",
  "others"
)

const text = fc.oneof(
  { weight: 3, arbitrary: plausibleText },
  { weight: 2, arbitrary: nastyText },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  // Any code point, lone surrogates included.
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) }
)

/** Field names Supabase Auth's endpoints read (and a few a client should never send). */
const fieldName = fc.constantFrom(
  "email",
  "password",
  "phone",
  "token",
  "token_hash",
  "type",
  "redirect_to",
  "code_challenge",
  "code_challenge_method",
  "data",
  "options",
  "gotrue_meta_security",
  "captcha_token",
  "channel",
  "create_user",
  "factor_id",
  "challenge_id",
  "code",
  "friendly_name",
  "factor_type",
  "issuer",
  "provider",
  "id_token",
  "nonce",
  "access_token",
  "refresh_token",
  "auth_code",
  "code_verifier",
  "user_id",
  "ban_duration",
  "app_metadata",
  "user_metadata",
  "email_confirm",
  "phone_confirm",
  "role",
  "scope",
  "current_password",
  "new_email",
  "webauthn",
  "credential_response",
  "should_soft_delete",
  "aud",
  "id",
  "client_id",
  "identifier",
  "provider_type",
  "client_secret",
  "discovery_url",
  "authorization_url",
  "token_url",
  "userinfo_url",
  "jwks_uri",
  "scopes",
  "pkce_enabled",
  "attribute_mapping",
  "enabled",
  "name",
  "acceptable_client_ids",
  "skip_nonce_check",
  "status",
  "rpId",
  "rpOrigins",
  "__proto__",
  "constructor",
  ""
)

/** A uuid no row has; fixed so that the run's requests are the same every time. */
const unknownUuid = "6f1d0c9e-5b8a-4c1e-9d2f-3a4b5c6d7e8f"

/** A JSON value for a field: text mostly, every other type too, the account's ids and tokens now and then. */
const fieldValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthSize: "small" },
    { weight: 6, arbitrary: text },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        placeholders.user,
        placeholders.factor,
        placeholders.access,
        placeholders.refresh,
        unknownUuid
      )
    },
    { weight: 2, arbitrary: fc.constantFrom(0, -1, 1, 1.5, 2 ** 53, 1e308, -1e308, true, false, null) },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(fieldName, tie("value"), { maxKeys: 3 }) }
  )
})).value

/**
 * A body as an endpoint expects it (`template`), then spoilt field by field: most fields keep
 * their plausible value, some take any value or go missing, and a stray field joins now and then.
 */
const spoilt = (template: Readonly<Record<string, fc.Arbitrary<unknown>>>) =>
  fc
    .record({
      fields: fc.record(
        Object.fromEntries(
          Object.entries(template).map(([name, plausible]) => [
            name,
            fc.oneof(
              { weight: 6, arbitrary: plausible.map((value) => ({ value })) },
              { weight: 2, arbitrary: fieldValue.map((value) => ({ value })) },
              { weight: 1, arbitrary: fc.constant(undefined) }
            )
          ])
        )
      ),
      stray: fc.dictionary(fieldName, fieldValue, { maxKeys: 2 }),
      strayFirst: fc.boolean()
    })
    .map(({ fields, stray, strayFirst }) => {
      const kept = Object.fromEntries(
        Object.entries(fields).flatMap(([name, held]) => (held === undefined ? [] : [[name, held.value]]))
      )
      return JSON.stringify(strayFirst ? { ...stray, ...kept } : { ...kept, ...stray })
    })

const one = <A>(...values: ReadonlyArray<A>) => fc.constantFrom(...values)
const email = one(
  placeholders.email,
  "fuzz@example.com",
  "FUZZ@example.com",
  "new-fuzz@example.com",
  "a@b",
  "x",
  "é@exämple.com",
  "a@xn--bcher-kva.example",
  "a@[127.0.0.1]",
  '"quoted"@example.com',
  "a+b@example.com",
  "a..b@example.com",
  `${"a".repeat(300)}@example.com`
)
const phone = one(
  "+15555550100",
  "15555550100",
  "+1555",
  "phone",
  "+123456789012345678901234567890",
  "+1 (555) 555-0100",
  "+"
)
const password = one("password-of-fuzz-1", "short", "")
const redirect = one(
  "http://localhost:3000/welcome",
  "javascript:alert(1)",
  "https://evil.example/",
  "",
  `http://localhost:3000/${"a".repeat(10_000)}`,
  "http://localhost:3000/#x",
  "//evil.example"
)
const challenge = one("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "short")
const challengeMethod = one("s256", "S256", "plain", "x")
const otpType = one(...otpTypes, "x")
const code = one("123456", "000000", "12345", "abcdef", "x".repeat(10_000), "１２３４５６")
/** Go durations, the longest and past it, as `ban_duration` takes them. */
const duration = one(
  "24h",
  "none",
  "-1h",
  "x",
  "2562047h",
  "2562048h",
  "9999999999999h",
  "1.5h",
  "1h1m1s1ms1us1ns",
  "0.000000001s",
  "1e3h",
  ""
)
const data = fc.dictionary(fc.string({ maxLength: 5 }), fieldValue, { maxKeys: 3 })
const bool = one(true, false)
const ids = one(placeholders.user, placeholders.factor, unknownUuid, "not-a-uuid")
const providerName = one("google", "github", "custom:fuzz", "email", "phone", "x")

/** Bodies as each endpoint reads them, by method and path (without the gateway's prefix). */
const bodies: Readonly<Record<string, ReadonlyArray<Readonly<Record<string, fc.Arbitrary<unknown>>>>>> = {
  "POST /signup": [
    { email, password, data, code_challenge: challenge, code_challenge_method: challengeMethod },
    { phone, password, channel: one("sms", "whatsapp", "x") },
    {}
  ],
  "POST /token?grant_type=password": [
    { email, password },
    { phone, password }
  ],
  "POST /token?grant_type=refresh_token": [{ refresh_token: one(placeholders.refresh, "x", "") }],
  "POST /token?grant_type=pkce": [{ auth_code: one(unknownUuid, "x"), code_verifier: challenge }],
  "POST /token?grant_type=id_token": [
    {
      provider: providerName,
      id_token: one("x.y.z", "eyJhbGciOiJub25lIn0.e30."),
      nonce: code,
      client_id: one("x")
    }
  ],
  "PUT /user": [
    { email, password, phone, data, nonce: code, current_password: password, code_challenge: challenge },
    { password, nonce: code }
  ],
  "POST /factors": [
    {
      factor_type: one("totp", "phone", "webauthn", "recovery_code", "x"),
      friendly_name: text,
      issuer: text,
      phone
    }
  ],
  "POST /factors/recovery-codes": [{}],
  "POST /factors/recovery-codes/verify": [{ code: one("abcd-efgh", "x") }],
  "POST /factors/{factor_id}/challenge": [
    {
      channel: one("sms", "whatsapp", "x"),
      webauthn: one({ rpId: "localhost", rpOrigins: ["http://localhost:3000"] })
    }
  ],
  "POST /factors/{factor_id}/verify": [
    { challenge_id: ids, code },
    { challenge_id: ids, webauthn: one({ type: "create", credential_response: {} }, { type: "request" }) }
  ],
  "POST /logout": [{}],
  "POST /verify": [
    { type: otpType, token: code, email, redirect_to: redirect },
    { type: otpType, token_hash: code },
    { type: otpType, token: code, phone }
  ],
  "POST /resend": [
    { type: otpType, email, phone, options: one({ emailRedirectTo: "http://localhost:3000" }) }
  ],
  "POST /recover": [{ email, code_challenge: challenge, code_challenge_method: challengeMethod }],
  "POST /magiclink": [{ email, data }],
  "POST /otp": [
    { email, create_user: bool, data, code_challenge: challenge, code_challenge_method: challengeMethod },
    { phone, channel: one("sms", "whatsapp", "x"), create_user: bool }
  ],
  "POST /invite": [{ email, data }],
  "POST /passkeys/authentication/verify": [{ challenge_id: ids, credential: data }],
  "POST /passkeys/registration/verify": [{ challenge_id: ids, credential: data }],
  "PATCH /passkeys/{passkey_id}": [{ friendly_name: text }],
  "POST /sso": [{ domain: one("example.com"), provider_id: ids, redirect_to: redirect }],
  "POST /admin/generate_link": [
    {
      type: one("signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new", "x"),
      email,
      password,
      new_email: email,
      data,
      redirect_to: redirect
    }
  ],
  "POST /admin/users": [
    {
      email,
      phone,
      password,
      email_confirm: bool,
      phone_confirm: bool,
      user_metadata: data,
      app_metadata: data,
      role: one("authenticated", "service_role", "x"),
      ban_duration: duration,
      id: ids,
      password_hash: one(
        "$argon2id$x",
        "x",
        "$2a$10$abc",
        "$2b$04$abcdefghijklmnopqrstuuJ8bC0aBzN8tTHGd4i5yB3L5A2c6Lk1u",
        "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=4294967295,t=4294967295,p=255$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2i$v=19$m=16,t=2,p=1$c2FsdHNhbHQ$aGFzaA",
        "$pbkdf2-sha256$i=1000,l=32$c2FsdA$aGFzaA",
        FirebaseHashes.vector,
        FirebaseHashes.hash(`n=30,r=8,p=1,ss=Bw==,sk=${FirebaseHashes.signerKey}`),
        "$fbscrypt$v=1,n=14,r=8,p=1,ss=!!,sk=AA==$c2FsdA==$aGFzaA==",
        "$2y$99$abcdefghijklmnopqrstuuJ8bC0aBzN8tTHGd4i5yB3L5A2c6Lk1u"
      )
    }
  ],
  "PUT /admin/users/{user_id}": [
    {
      email,
      phone,
      password,
      email_confirm: bool,
      user_metadata: data,
      app_metadata: data,
      ban_duration: duration,
      role: one("authenticated", "x")
    }
  ],
  "DELETE /admin/users/{user_id}": [{ should_soft_delete: bool }],
  "PUT /admin/users/{user_id}/factors/{factor_id}": [{ friendly_name: text, phone }],
  "POST /admin/custom-providers": [
    {
      provider_type: one("oidc", "oauth2", "x"),
      identifier: one("custom:fuzz", "fuzz", "x"),
      name: text,
      client_id: text,
      client_secret: text,
      issuer: one("https://idp.example", "x"),
      scopes: one<unknown>(["openid"], "openid"),
      pkce_enabled: bool,
      enabled: bool
    }
  ],
  "PUT /admin/custom-providers/{identifier}": [{ name: text, client_id: text, enabled: bool }]
}

/** Queries as each endpoint reads them. */
const queries: Readonly<Record<string, Readonly<Record<string, fc.Arbitrary<string>>>>> = {
  "GET /verify": { token: code, type: otpType, redirect_to: redirect },
  "GET /authorize": {
    provider: providerName,
    redirect_to: redirect,
    scopes: one("email", "x"),
    code_challenge: challenge,
    code_challenge_method: challengeMethod
  },
  "GET /callback": {
    state: one("x", "eyJhbGciOiJub25lIn0.e30."),
    code: one("x"),
    error: one("access_denied"),
    error_description: text
  },
  "GET /user/identities/authorize": {
    provider: providerName,
    redirect_to: redirect,
    skip_http_redirect: one("true", "x")
  },
  "GET /admin/users": {
    page: one("1", "0", "-1", "x", "99999999999", "1e3", "0x10", " 1", "1.5", "9223372036854775808"),
    per_page: one("1", "50", "0", "x", "1e3", "9223372036854775807", "-5"),
    filter: text,
    sort: one("created_at desc", "x", "email asc", "created_at; DROP TABLE x")
  },
  "GET /admin/custom-providers": { type: one("oidc", "oauth2", "x") }
}

/** A query's parameters, percent-encoded or not, each now and then missing. */
const queryOf = (template: Readonly<Record<string, fc.Arbitrary<string>>> | undefined) =>
  fc
    .record({
      fields: fc.record(
        Object.fromEntries(
          Object.entries(template ?? {}).map(([name, plausible]) => [
            name,
            fc.oneof(
              { weight: 5, arbitrary: plausible.map(percentEncoded) },
              { weight: 1, arbitrary: text.map(percentEncoded) },
              { weight: 1, arbitrary: fc.constantFrom("%00", "%", "%ZZ", "%E0%A4%A", "+") },
              { weight: 2, arbitrary: fc.constant(undefined) }
            )
          ])
        )
      ),
      stray: sometimes(
        fc.tuple(fc.constantFrom("grant_type", "redirect_to", "__proto__", "page"), text.map(percentEncoded)),
        4
      )
    })
    .map(({ fields, stray }) =>
      [
        ...Object.entries(fields).flatMap(([name, value]) =>
          value === undefined ? [] : [`${name}=${value}`]
        ),
        ...(stray === undefined ? [] : [`${stray[0]}=${stray[1]}`])
      ].join("&")
    )

/** A JSON body of any shape, or no JSON at all. */
const wildBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(fieldName, fieldValue, { maxKeys: 6 }).map((o) => JSON.stringify(o))
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...brokenJson,
      '{"email":"a\\u0000b@example.com","password":"password-of-fuzz-1"}',
      '{"email":"\\ud800@example.com"}',
      '{"data":{"\\u0000":1}}',
      '{"__proto__":{"role":"service_role"}}',
      `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
      `{"email":"${"a".repeat(70_000)}"}`
    )
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 100 }) }
)

/** A path parameter: the account's ids, an unknown uuid, or text a client should not send. */
const pathValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(placeholders.user, placeholders.factor, unknownUuid) },
  { weight: 1, arbitrary: fc.constantFrom("recovery-codes", "google", "custom:fuzz", "custom%3Afuzz") },
  { weight: 2, arbitrary: text.map(percentEncoded) }
)

/** Any caller: nobody, the account, the service role, the anonymous key, or credentials that are none. */
const anyCaller = fc.constantFrom(
  undefined,
  `Bearer ${placeholders.access}`,
  `Bearer ${placeholders.service}`,
  `Bearer ${placeholders.anon}`,
  `Bearer ${placeholders.refresh}`,
  "Bearer",
  "Bearer x.y.z",
  "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
  `bearer ${placeholders.access}`,
  "Basic Zm9vOmJhcg==",
  "\xff"
)

/** The caller a route expects most of the time (the service role for the admin's), any other now and then. */
const callerFor = (bare: string) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constant(
        bare.startsWith("/admin") || bare === "/invite"
          ? `Bearer ${placeholders.service}`
          : `Bearer ${placeholders.access}`
      )
    },
    { weight: 1, arbitrary: anyCaller }
  )

const methods = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND")

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/x-www-form-urlencoded",
  "text/plain",
  "multipart/form-data; boundary=x",
  ""
)

const prefix = Routes.gatewayPrefix

/** Each route's requests: what it reads, spoilt; now and then another method, path or media type. */
const forRoute = (route: (typeof Routes.routes)[number]): fc.Arbitrary<RawHttp.Sent> => {
  const bare = route.path.startsWith(`${prefix}/`) ? route.path.slice(prefix.length) : route.path
  const key = `${route.method} ${bare}`
  const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] ?? "")
  const grants = ["password", "refresh_token", "pkce", "id_token", "web3", "x"]
  // POST /token: one body template per grant, the grant in the query as supabase-js sends it.
  const grantedBody =
    key === "POST /token"
      ? fc.constantFrom(...grants).chain((grant) => {
          const templates = bodies[`POST /token?grant_type=${grant}`] ?? [{}]
          return fc.oneof(...templates.map(spoilt)).map((body) => ({ query: `grant_type=${grant}`, body }))
        })
      : undefined
  const templates = bodies[key]
  const plausibleBody =
    route.method === "GET" || route.method === "DELETE"
      ? fc.constant(undefined)
      : templates === undefined
        ? sometimes(wildBody, 4)
        : fc.oneof(...templates.map(spoilt))
  return fc
    .record({
      method: fc.oneof(
        { weight: 19, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: methods }
      ),
      values: fc.tuple(...names.map(() => pathValue)),
      mangle: sometimes(fc.constantFrom("/", "//", "/..", "%00", ";x=1"), 20),
      granted: grantedBody ?? fc.constant(undefined),
      query: queryOf(queries[key]),
      body: fc.oneof({ weight: 9, arbitrary: plausibleBody }, { weight: 1, arbitrary: wildBody }),
      contentType: fc.oneof(
        { weight: 19, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: contentTypes }
      ),
      authorization: callerFor(bare),
      apikey: sometimes(fc.constantFrom(placeholders.anon, placeholders.service, "x"), 2),
      version: sometimes(fc.constantFrom("2024-01-01", "2023-01-01", "x"), 4),
      forwardedFor: sometimes(fc.constantFrom("203.0.113.9", "unknown", "", "::1"), 4)
    })
    .map((r): RawHttp.Sent => {
      let path = route.path
      names.forEach((name, index) => {
        path = path.replace(`{${name}}`, r.values[index] ?? "")
      })
      if (r.mangle !== undefined) path = `${path}${r.mangle}`
      const query = r.granted?.query ?? r.query
      const body = r.granted?.body ?? r.body
      return {
        method: r.method,
        path: query === "" ? path : `${path}?${query}`,
        headers: withoutUndefined({
          "content-type": body === undefined ? undefined : r.contentType,
          authorization: r.authorization,
          apikey: r.apikey,
          "x-supabase-api-version": r.version,
          "x-forwarded-for": r.forwardedFor
        }),
        ...(body === undefined ? {} : { body })
      }
    })
}

const elsewhere = fc
  .record({
    method: methods,
    path: fc.oneof(
      fc.constantFrom(
        "//",
        "/%2F",
        "/..",
        "/../token",
        "/auth/v1",
        "/auth/v1/",
        "/auth/v2/user",
        "/admin",
        "*"
      ),
      fc
        .string({ unit: fc.constantFrom("a", "/", "%", "0", ".", "{", "}"), maxLength: 20 })
        .map((s) => `/${s}`)
    ),
    body: sometimes(wildBody, 2),
    authorization: anyCaller
  })
  .map(
    (r): RawHttp.Sent => ({
      method: r.method,
      path: r.path,
      headers: withoutUndefined({
        "content-type": r.body === undefined ? undefined : "application/json",
        authorization: r.authorization
      }),
      ...(r.body === undefined ? {} : { body: r.body })
    })
  )

const anyRequest = fc.oneof(...Routes.routes.map(forRoute), elsewhere)

/** The request as it goes out, the live account's ids and tokens in place of the placeholders. */
const filled = (sent: RawHttp.Sent, account: Account): RawHttp.Sent => ({
  ...sent,
  path: filledIn(sent.path, account),
  headers: Object.fromEntries(
    Object.entries(sent.headers ?? {}).map(([name, value]) => [
      name,
      typeof value === "string" ? filledIn(value, account) : value
    ])
  ),
  ...(typeof sent.body === "string" ? { body: filledIn(sent.body, account) } : {})
})

/**
 * The verdict on one answer, whatever the other answers were: below 500; a refusal in JSON is
 * in one of Supabase Auth's shapes (a HEAD answer has no body to read).
 */
const judge = (sent: RawHttp.Sent, answer: RawHttp.Answer) => {
  const what = `${sent.method} ${sent.path.slice(0, 200)} ${String(sent.body ?? "").slice(0, 300)} → ${answer.status} ${answer.body.slice(0, 300)}`
  expect(answer.status, what).toBeLessThan(500)
  const type = String(answer.headers["content-type"] ?? "")
  if (answer.status >= 400 && type.startsWith("application/json") && sent.method !== "HEAD") {
    const parsed: unknown = JSON.parse(answer.body)
    expect(isRefusal(parsed), what).toBe(true)
  }
}

/** POST with a JSON body, read as JSON. */
const postJson = async (
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {}
) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() }
}

const SignedUp = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  user: Schema.Struct({ id: Schema.String })
})
const Enrolled = Schema.Struct({ id: Schema.String })

/** A new account with a TOTP and a phone factor, signed in: what the next requests act on. */
const newAccount = async (baseUrl: string, keys: { readonly anon: string; readonly service: string }) => {
  const email = `fuzz-${randomUUID()}@example.com`
  const signedUp = await postJson(
    baseUrl,
    "/signup",
    { email, password: "password-of-fuzz-1" },
    { apikey: keys.anon }
  )
  expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200)
  const session = Schema.decodeUnknownSync(SignedUp)(signedUp.body)
  const enrolled = await postJson(
    baseUrl,
    "/factors",
    { factor_type: "totp", friendly_name: "fuzz" },
    { authorization: `Bearer ${session.access_token}` }
  )
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200)
  // An unverified phone factor too: a new one of its number replaces it.
  const phoneFactor = await postJson(
    baseUrl,
    "/factors",
    { factor_type: "phone", friendly_name: "fuzz phone", phone: "+15555550100" },
    { authorization: `Bearer ${session.access_token}` }
  )
  expect(phoneFactor.status, JSON.stringify(phoneFactor.body)).toBe(200)
  return {
    ...keys,
    user: session.user.id,
    email,
    access: session.access_token,
    refresh: session.refresh_token,
    factor: Schema.decodeUnknownSync(Enrolled)(enrolled.body).id
  } satisfies Account
}

const asUser = (method: string, path: string, body?: unknown): RawHttp.Sent => ({
  method,
  path,
  headers: { "content-type": "application/json", authorization: `Bearer ${placeholders.access}` },
  ...(body === undefined ? {} : { body: JSON.stringify(body) })
})

/** The once-only steps a double submit meets most, each sent as its own copies at once. */
const doubled: ReadonlyArray<RawHttp.Sent> = [
  // Replaces the account's unverified phone factor, under one name.
  asUser("POST", "/factors", { factor_type: "phone", friendly_name: "fuzz phone", phone: "+15555550100" }),
  asUser("POST", "/factors", { factor_type: "totp", friendly_name: "double" }),
  asUser("POST", `/factors/${placeholders.factor}/challenge`, {}),
  asUser("DELETE", `/factors/${placeholders.factor}`),
  asUser("POST", "/factors/recovery-codes", {}),
  asUser("PUT", "/user", { password: "password-of-fuzz-2" }),
  asUser("PUT", "/user", { data: { double: true } }),
  asUser("GET", "/reauthenticate"),
  asUser("POST", "/logout"),
  asUser("POST", "/passkeys/registration/options", {}),
  // Mails of one user: each writes a flow state and a token that refer to the user, then stamps the user.
  ...["/recover", "/otp", "/magiclink"].map(
    (path): RawHttp.Sent => ({
      method: "POST",
      path,
      headers: { "content-type": "application/json", apikey: placeholders.anon },
      body: JSON.stringify({
        email: placeholders.email,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "s256"
      })
    })
  ),
  {
    method: "POST",
    path: "/token?grant_type=refresh_token",
    headers: { "content-type": "application/json", apikey: placeholders.anon },
    body: JSON.stringify({ refresh_token: placeholders.refresh })
  },
  {
    method: "DELETE",
    path: `/admin/users/${placeholders.user}`,
    headers: { authorization: `Bearer ${placeholders.service}` }
  },
  {
    method: "PUT",
    path: `/admin/users/${placeholders.user}`,
    headers: { "content-type": "application/json", authorization: `Bearer ${placeholders.service}` },
    body: JSON.stringify({ email: "doubled@example.com", ban_duration: "1h" })
  }
]

/** The service as the fuzz runs see it: every feature with routes on, limits no run reaches. */
const fuzzedService = Effect.gen(function* () {
  const { baseUrl, process } = yield* AuthServerHarness.start({
    env: {
      AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED: "true",
      AUTHSVC_PASSKEY_ENABLED: "true",
      AUTHSVC_MFA_PHONE_ENROLL_ENABLED: "true",
      AUTHSVC_MFA_PHONE_VERIFY_ENABLED: "true",
      AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
      AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
      AUTHSVC_WEBAUTHN_RP_ID: "localhost",
      AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "Fuzz",
      AUTHSVC_WEBAUTHN_RP_ORIGINS: "http://localhost:3000",
      AUTHSVC_SMS_TEST_OTP: "+15555550100:123456",
      AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1000000",
      AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "1000000",
      AUTHSVC_RATE_LIMIT_PASSKEY: "1000000",
      AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000000"
    }
  })
  const keys = yield* Effect.promise(async () => ({
    anon: await SupabaseClientSupport.apiKey("anon"),
    service: await SupabaseClientSupport.apiKey("service_role")
  }))
  return { baseUrl, keys, process }
})

/**
 * `run`, and when it fails with the server gone, that told with the server's last lines: a
 * refused connection says nothing of why the process ended.
 */
const tellingTheEnd = async (server: CliProcess.Running, run: () => Promise<void>) => {
  try {
    await run()
  } catch (error) {
    if (!server.hasExited()) throw error
    throw new Error(
      `the server ended during the run; its last lines:\n${server.lines().slice(-60).join("\n")}`,
      { cause: error }
    )
  }
}

describe("HTTP fuzz of the auth service", () => {
  it.live(
    "every answer is below 500 and in Supabase Auth's shape, and the server still serves afterwards",
    () =>
      Effect.gen(function* () {
        const { baseUrl, keys, process } = yield* fuzzedService
        let account = yield* Effect.promise(() => newAccount(baseUrl, keys))
        let sent = 0
        yield* Effect.promise(() =>
          tellingTheEnd(process, () =>
            fc.assert(
              fc.asyncProperty(anyRequest, async (request) => {
                // A new account every 20 requests: one of them may have deleted or signed out the last.
                if (++sent % 20 === 0) account = await newAccount(baseUrl, keys)
                const out = filled(request, account)
                judge(out, await RawHttp.send(baseUrl, out))
              }),
              // A fixed seed and run count: the same requests on every run, so that a failure
              // reproduces from its report; exploring other inputs is a deliberate change of the
              // seed. Each request is judged on its own answer, never by a count over the run.
              { seed: 2026_11_27, numRuns: 3_000 }
            )
          )
        )

        // Still serving: a sign-up and its session.
        const after = yield* Effect.promise(() => newAccount(baseUrl, keys))
        expect(after.access).not.toBe(account.access)
      }).pipe(Effect.scoped),
    { timeout: 300_000 }
  )

  it.live(
    "the same request twelve times at once: every answer below 500 and in Supabase Auth's shape",
    () =>
      Effect.gen(function* () {
        const { baseUrl, keys, process } = yield* fuzzedService
        // What a double-clicking user or a retrying client sends: once-only steps (an enrolment,
        // a verify, a refresh, a deletion) meet themselves. The requests are a fixed sample; the
        // order the copies land in is the server's, and every order must be answered well.
        const requests = [...doubled, ...fc.sample(anyRequest, { seed: 2026_11_28, numRuns: 300 })]
        for (const request of requests) {
          const account = yield* Effect.promise(() => newAccount(baseUrl, keys))
          const out = filled(request, account)
          yield* Effect.promise(() =>
            tellingTheEnd(process, async () => {
              const answers = await Promise.all(Array.from({ length: 12 }, () => RawHttp.send(baseUrl, out)))
              for (const answer of answers) judge(out, answer)
            })
          )
        }
      }).pipe(Effect.scoped),
    { timeout: 300_000 }
  )
})
