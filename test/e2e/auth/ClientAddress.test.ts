import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import { anHour, awayFromWindowEdge } from "../../support/WindowEdge.js"

let scope: Scope.CloseableScope
let baseUrl = ""
/** Configured as a Supabase deployment trusts its proxy: Supabase Auth's name, its header. */
let behindSupabaseProxy = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const [forwarded, supabase] = await Effect.runPromise(
    Scope.extend(
      Effect.all(
        [
          AuthServerHarness.start({ env: { AUTHSVC_RATE_LIMIT_HEADER: "X-Forwarded-For" } }),
          AuthServerHarness.start({
            env: {
              GOTRUE_SECURITY_SB_FORWARDED_FOR_ENABLED: "true",
              AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "1"
            }
          })
        ],
        { concurrency: "unbounded" }
      ),
      scope
    )
  )
  baseUrl = forwarded.baseUrl
  behindSupabaseProxy = supabase.baseUrl
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const post = (path: string, body: unknown, forwardedFor: string) =>
  fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: JSON.stringify(body)
  })

describe("the client address behind a proxy (RATE_LIMIT_HEADER)", () => {
  it("whatever the client puts first in X-Forwarded-For, sign-up and sign-in start their sessions", async () => {
    // The first entry is the client's own text: an address with a port, or no address at all,
    // must not stop the session from being stored with the address it keeps.
    for (const forwardedFor of [
      "garbage, 10.0.0.1",
      "[2001:db8::1]:443",
      "203.0.113.9:8080",
      "fe80::1%eth0"
    ]) {
      const email = `${randomUUID()}@example.com`
      const signedUp = await post("/signup", { email, password: "correct horse 1" }, forwardedFor)
      expect(signedUp.status).toBe(200)
      expect(await signedUp.json()).toMatchObject({ user: { email } })
      const signedIn = await post(
        "/token?grant_type=password",
        { email, password: "correct horse 1" },
        forwardedFor
      )
      expect(signedIn.status).toBe(200)
    }
  })
})

describe("the client address behind a Supabase proxy (SECURITY_SB_FORWARDED_FOR_ENABLED)", () => {
  const anonymously = (sbForwardedFor: string) =>
    fetch(`${behindSupabaseProxy}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", "sb-forwarded-for": sbForwardedFor },
      body: JSON.stringify({ data: {} })
    })

  it("counts each address Sb-Forwarded-For names apart: one anonymous sign-in an hour each here", async () => {
    await awayFromWindowEdge(anHour)
    expect((await anonymously("198.51.100.7, 10.0.0.1")).status).toBe(200)
    const again = await anonymously("198.51.100.7")
    expect(again.status).toBe(429)
    expect(await again.json()).toMatchObject({ error_code: "over_request_rate_limit" })
    // Another client behind the same proxy, so from the same socket address, is its own count.
    expect((await anonymously("198.51.100.8")).status).toBe(200)
  })
})
