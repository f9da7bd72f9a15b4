import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import { awayFromWindowEdge, fiveMinutes } from "../../support/WindowEdge.js"

// Several instances need a PostgreSQL server they all reach; CI always has one.
const hasServer = inject("postgresUrl") !== null

let scope: Scope.CloseableScope
let a = ""
let b = ""

const env = {
  AUTHSVC_MAILER_AUTOCONFIRM: "false",
  AUTHSVC_RATE_LIMIT_EMAIL_SENT: "3",
  AUTHSVC_RATE_LIMIT_OTP: "6",
  AUTHSVC_RATE_LIMIT_VERIFY: "3"
}

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  const [first, second] = await Effect.runPromise(Scope.extend(AuthServerHarness.startPair(env), scope))
  a = first.baseUrl
  b = second.baseUrl
}, 120_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json: unknown = await response.json()
  const code = typeof json === "object" && json !== null && "error_code" in json ? json.error_code : undefined
  return { status: response.status, code }
}

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

describe.runIf(hasServer)("message limits shared by two instances on one database", () => {
  it("RATE_LIMIT_EMAIL_SENT, RATE_LIMIT_OTP and RATE_LIMIT_VERIFY count every instance's requests together", async () => {
    // The limits count in windows of 5 minutes, the mail cap in hours (which start on 5-minute
    // boundaries too).
    await awayFromWindowEdge(fiveMinutes)
    // Three mails, whichever instance sends them; the fourth is over the hourly cap.
    for (const base of [a, b, a])
      expect(await post(`${base}/otp`, { email: freshEmail() })).toEqual({ status: 200, code: undefined })
    expect(await post(`${b}/otp`, { email: freshEmail() })).toEqual({
      status: 429,
      code: "over_email_send_rate_limit"
    })
    // Requests that could send a message: six per client address, the four above included.
    expect((await post(`${a}/recover`, { email: freshEmail() })).status).toBe(200)
    expect((await post(`${b}/recover`, { email: freshEmail() })).status).toBe(200)
    expect(await post(`${a}/recover`, { email: freshEmail() })).toEqual({
      status: 429,
      code: "over_request_rate_limit"
    })
    // /verify: three per client address, wrong codes included.
    const wrong = { type: "email", email: freshEmail(), token: "000000" }
    for (const base of [b, a, b]) expect((await post(`${base}/verify`, wrong)).code).toBe("otp_expired")
    expect(await post(`${a}/verify`, wrong)).toEqual({ status: 429, code: "over_request_rate_limit" })
  })
})
