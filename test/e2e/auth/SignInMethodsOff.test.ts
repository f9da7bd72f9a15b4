import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"

/**
 * Email and phone sign-in off (`EXTERNAL_EMAIL_ENABLED`, `EXTERNAL_PHONE_ENABLED`): each endpoint
 * refuses with Supabase Auth's code and status, which differ between them for the same words.
 */

let scope: Scope.CloseableScope
let baseUrl = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: { AUTHSVC_EXTERNAL_EMAIL_ENABLED: "false", AUTHSVC_EXTERNAL_PHONE_ENABLED: "false" }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const post = async (path: string, body: unknown) => {
  const answer = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = (await answer.json()) as { error_code?: string; msg?: string }
  return [answer.status, json.error_code, json.msg]
}

describe("sign-in methods off", () => {
  it("POST /resend answers 400, as Supabase Auth does; the password grant 422", async () => {
    expect(await post("/resend", { type: "signup", email: "ada@example.com" })).toEqual([
      400,
      "email_provider_disabled",
      "Email logins are disabled"
    ])
    expect(await post("/resend", { type: "sms", phone: "15555550100" })).toEqual([
      400,
      "phone_provider_disabled",
      "Phone logins are disabled"
    ])
    expect(
      await post("/token?grant_type=password", { email: "ada@example.com", password: "whatever-123" })
    ).toEqual([422, "email_provider_disabled", "Email logins are disabled"])
  })
})
