import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"

let scope: Scope.CloseableScope
let baseUrl = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const started = AuthServerHarness.start({ env: { AUTHSVC_RATE_LIMIT_HEADER: "X-Forwarded-For" } })
  baseUrl = (await Effect.runPromise(Scope.extend(started, scope))).baseUrl
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
