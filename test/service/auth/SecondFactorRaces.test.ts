import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import { SoftwareAuthenticator } from "../../support/auth/SoftwareAuthenticator.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { jsonObject } from "../../support/JsonBody.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

/**
 * The once-only steps of WebAuthn factor verifies and recovery codes on PostgreSQL: many requests
 * with one answer at the same moment, exactly one session raised.
 */
const hasServer = inject("postgresUrl") !== null
const origin = "http://localhost:3000"

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: {
          AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000000",
          AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
          AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
          AUTHSVC_WEBAUTHN_RP_ID: "localhost",
          AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "latchkey",
          AUTHSVC_WEBAUTHN_RP_ORIGINS: origin
        }
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

const password = "correct horse battery staple"

interface Answer {
  readonly status: number
  readonly body: Record<string, unknown>
}

/** A user signed up: their access token. */
const signedUp = async () => {
  const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
  const email = `${crypto.randomUUID()}@example.com`
  const answer = await supabase.auth.signUp({ email, password })
  const token = answer.data.session?.access_token
  if (token === undefined) throw new Error("autoconfirm signs in")
  return { email, token }
}

const call = async (token: string, method: string, path: string, body?: unknown): Promise<Answer> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await jsonObject(response) }
}

/** `count` copies of one request at once: how many got 200, and the others' error codes. */
const atOnce = async (count: number, send: () => Promise<Answer>) => {
  const answers = await Promise.all(Array.from({ length: count }, send))
  return {
    passed: answers.filter((answer) => answer.status === 200).length,
    refused: new Set(
      answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.error_code)
    )
  }
}

/** The value at `path` in a JSON answer, if there is one. */
const at = (value: unknown, ...path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>(
    (inner, key) => (typeof inner === "object" && inner !== null ? Reflect.get(inner, key) : undefined),
    value
  )

/** What the software authenticator reads of a challenge's options, create or request. */
const webAuthnOf = (answer: Answer) => {
  const options = (...path: ReadonlyArray<string>) =>
    String(at(answer.body, "webauthn", "credential_options", "publicKey", ...path))
  return {
    challenge: options("challenge"),
    rp: { id: options("rp", "id") },
    user: { id: options("user", "id") },
    rpId: options("rpId")
  }
}

describe.runIf(hasServer)("second factors verified many times at once, on PostgreSQL", () => {
  it("a WebAuthn registration and then an assertion, 30 times each at once: one passes each time", async () => {
    const { token } = await signedUp()
    const factor = await call(token, "POST", "/factors", { factor_type: "webauthn", friendly_name: "key" })
    const factorId = String(factor.body.id)
    const authenticator = new SoftwareAuthenticator({ origin })
    const create = await call(token, "POST", `/factors/${factorId}/challenge`, {})
    const registration = authenticator.register(webAuthnOf(create))
    const registered = await atOnce(30, () =>
      call(token, "POST", `/factors/${factorId}/verify`, {
        challenge_id: create.body.id,
        webauthn: { type: "create", credential_response: registration }
      })
    )
    expect(registered.passed).toBe(1)
    // Refused as a used challenge, or as none when it was already deleted, depending on timing.
    for (const refused of registered.refused) {
      expect(["mfa_ip_address_mismatch", "mfa_factor_not_found"]).toContain(refused)
    }

    const request = await call(token, "POST", `/factors/${factorId}/challenge`, {})
    expect(at(request.body, "webauthn", "type")).toBe("request")
    const assertion = authenticator.assert(webAuthnOf(request))
    const asserted = await atOnce(30, () =>
      call(token, "POST", `/factors/${factorId}/verify`, {
        challenge_id: request.body.id,
        webauthn: { type: "request", credential_response: assertion }
      })
    )
    expect(asserted.passed).toBe(1)
    // An assertion answers its own challenge only.
    const again = await call(token, "POST", `/factors/${factorId}/challenge`, {})
    const stale = await call(token, "POST", `/factors/${factorId}/verify`, {
      challenge_id: again.body.id,
      webauthn: { type: "request", credential_response: assertion }
    })
    expect([stale.status, stale.body.error_code]).toEqual([422, "mfa_verification_failed"])
  })

  it("one recovery code presented 30 times at once raises one session", async () => {
    const { token } = await signedUp()
    const factor = await call(token, "POST", "/factors", { factor_type: "totp", friendly_name: "app" })
    const secret = String(at(factor.body, "totp", "secret"))
    const challenge = await call(token, "POST", `/factors/${factor.body.id}/challenge`, {})
    const raised = await call(token, "POST", `/factors/${factor.body.id}/verify`, {
      challenge_id: challenge.body.id,
      code: codeOfStep(secret, Math.floor(Date.now() / 1000 / 30))
    })
    expect(raised.status).toBe(200)
    const aal2 = String(raised.body.access_token)
    const set = await call(aal2, "POST", "/factors/recovery-codes")
    const code = String(at(set.body, "codes", 0))
    const outcome = await atOnce(30, () => call(token, "POST", "/factors/recovery-codes/verify", { code }))
    expect(outcome.passed).toBe(1)
    for (const refused of outcome.refused) {
      expect(["mfa_verification_failed", "mfa_recovery_codes_locked"]).toContain(refused)
    }
    const status = await call(aal2, "GET", "/factors/recovery-codes")
    expect(status.body).toMatchObject({ total: 10, remaining: 9 })
  })
})
