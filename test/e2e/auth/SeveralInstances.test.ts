import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

// Several instances need a PostgreSQL server they all reach; CI always has one.
const hasServer = inject("postgresUrl") !== null

let scope: Scope.CloseableScope
let a = ""
let b = ""

/** /token requests per client address per 5 minutes, shared by both instances. */
const tokenLimit = 8
/** The limiter's fixed window for /token (Supabase Auth's five minutes), counted from the epoch. */
const windowMs = 5 * 60 * 1000

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  const env = {
    AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: String(tokenLimit),
    // The client address the limiter counts comes from this header, so that each test names its own.
    AUTHSVC_RATE_LIMIT_HEADER: "X-Test-Client"
  }
  // Started at the same moment on one fresh database: both migrate, one key results.
  const [first, second] = await Effect.runPromise(Scope.extend(AuthServerHarness.startPair(env), scope))
  a = first.baseUrl
  b = second.baseUrl
}, 120_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

const json = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers ?? {}) }
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const refresh = (base: string, token: string, client = "192.0.2.1") =>
  json(`${base}/token?grant_type=refresh_token`, {
    method: "POST",
    headers: { "x-test-client": client },
    body: JSON.stringify({ refresh_token: token })
  })

describe.runIf(hasServer)("several auth instances on one database", () => {
  it("come up together with one signing key, and share users and sessions", async () => {
    const [jwksA, jwksB] = await Promise.all([
      json(`${a}/.well-known/jwks.json`),
      json(`${b}/.well-known/jwks.json`)
    ])
    expect(jwksA.body).toEqual(jwksB.body)
    expect(Array.isArray(jwksA.body.keys) ? jwksA.body.keys.length : 0).toBe(1)

    const email = `${crypto.randomUUID()}@example.com`
    const password = "correct horse battery staple"
    const signedUp = await json(`${a}/signup`, { method: "POST", body: JSON.stringify({ email, password }) })
    expect(signedUp.status).toBe(200)
    const signedIn = await json(`${b}/token?grant_type=password`, {
      method: "POST",
      body: JSON.stringify({ email, password })
    })
    expect(signedIn.status).toBe(200)
    const user = await json(`${a}/user`, {
      headers: { authorization: `Bearer ${String(signedIn.body.access_token)}` }
    })
    expect(user.body.email).toBe(email)

    // Concurrent refreshes of one token, half at each instance, inside the reuse interval: one
    // child for all of them, never a conflict.
    const token = String(signedIn.body.refresh_token)
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => refresh(i % 2 === 0 ? a : b, token))
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200))
    expect(new Set(answers.map((answer) => answer.body.refresh_token)).size).toBe(1)
  })

  it("count one rate limit across instances", async () => {
    // Each attempt counts from a client address of its own, so that nothing else spends its
    // limit. The limiter's windows are fixed: an attempt that a window boundary cut in two
    // counted in two windows, and is made again with another address.
    for (let attempt = 1; ; attempt++) {
      const client = `198.51.100.${attempt}`
      const window = Math.floor(Date.now() / windowMs)
      const statuses: Array<number> = []
      for (let i = 0; i < tokenLimit + 2; i++) {
        statuses.push((await refresh(i % 2 === 0 ? a : b, "lkr_unknown", client)).status)
      }
      const limited = await refresh(b, "lkr_unknown", client)
      if (Math.floor(Date.now() / windowMs) !== window && attempt < 3) continue
      expect(statuses).toEqual([...Array(tokenLimit).fill(400), 429, 429])
      expect(limited.body).toMatchObject({ error_code: "over_request_rate_limit" })
      expect(Option.some(limited.status)).toEqual(Option.some(429))
      return
    }
  })

  it("see a custom provider the moment another instance saves, changes or deletes it", async () => {
    const admin = { authorization: `Bearer ${await SupabaseClientSupport.apiKey("service_role")}` }
    // Public literal addresses: checked without a name to resolve, and never contacted here,
    // since starting a sign-in only builds the provider's URL.
    const provider = (authorizationUrl: string) =>
      JSON.stringify({
        provider_type: "oauth2",
        identifier: "custom:shared",
        name: "Shared",
        client_id: "shared-client",
        client_secret: "shared-secret",
        authorization_url: authorizationUrl,
        token_url: "https://1.1.1.1/token",
        userinfo_url: "https://1.1.1.1/userinfo"
      })
    const startAt = async (base: string) => {
      const response = await fetch(`${base}/authorize?provider=custom:shared`, { redirect: "manual" })
      const location = response.headers.get("location")
      return location === null ? response.status : new URL(location).origin + new URL(location).pathname
    }
    expect(await startAt(b)).toBe(400)
    const created = await json(`${a}/admin/custom-providers`, {
      method: "POST",
      headers: admin,
      body: provider("https://1.1.1.1/authorize")
    })
    expect(created.status).toBe(201)
    expect(await startAt(b)).toBe("https://1.1.1.1/authorize")
    const changed = await json(`${a}/admin/custom-providers/custom:shared`, {
      method: "PUT",
      headers: admin,
      body: JSON.stringify({ authorization_url: "https://8.8.8.8/authorize" })
    })
    expect(changed.status).toBe(200)
    expect(await startAt(b)).toBe("https://8.8.8.8/authorize")
    const deleted = await fetch(`${a}/admin/custom-providers/custom:shared`, {
      method: "DELETE",
      headers: admin
    })
    expect(deleted.status).toBe(204)
    expect(await startAt(b)).toBe(400)
  })
})
