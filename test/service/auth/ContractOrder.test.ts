import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import { jsonObject } from "../../support/JsonBody.js"
import * as CaptchaAuth from "../support/CaptchaAuth.js"
import * as InProcessAuth from "../support/InProcessAuth.js"

/*
 * Which check of an endpoint's contract answers when several would refuse, through the auth
 * service's own route table (adapters/http/auth/Routes.ts): the answers Supabase Auth gives,
 * whose endpoints count their rate limits at different points. Every limit here allows one
 * request per client address in a window that the instance's standing clock never leaves,
 * custom providers are off, and the captcha provider passes any token sent.
 */

let auth: CaptchaAuth.CaptchaAuth
let baseUrl = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  auth = await CaptchaAuth.start(
    {
      AUTHSVC_RATE_LIMIT_OTP: "1",
      AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1",
      AUTHSVC_RATE_LIMIT_VERIFY: "1",
      AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1",
      AUTHSVC_CUSTOM_OAUTH_ENABLED: "false"
    },
    // Time stands still for the instance: each limit's window holds every request of the file.
    { clock: InProcessAuth.standingClock(new Date()) }
  )
  auth.hcaptcha.reply = SiteVerifyFake.pass
  baseUrl = auth.baseUrl
  anonKey = auth.anonKey
  serviceKey = auth.serviceKey
}, 60_000)

afterAll(async () => {
  await auth.close()
})

const good = { gotrue_meta_security: { captcha_token: "good" } }

/** The status and error code of an answer. */
const call = async (
  method: string,
  path: string,
  body: unknown,
  bearer?: string
): Promise<{ status: number; code: string | null }> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      apikey: anonKey,
      "content-type": "application/json",
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` })
    },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  await response.arrayBuffer()
  return { status: response.status, code: response.headers.get("x-sb-error-code") }
}

const captchaFailed = { status: 400, code: "captcha_failed" }
const overLimit = { status: 429, code: "over_request_rate_limit" }
const badJson = { status: 400, code: "bad_json" }

describe("the order of an endpoint's checks", () => {
  it("/otp and the others that send messages count their limit first, before the captcha and the caller", async () => {
    // Refused by the captcha, and counted all the same: the one request the limit allows.
    expect(await call("POST", "/otp", { email: "a@example.com" })).toEqual(captchaFailed)
    expect(await call("POST", "/otp", { email: "a@example.com", ...good })).toEqual(overLimit)
    expect(await call("POST", "/recover", { email: "a@example.com" })).toEqual(overLimit)
    expect(await call("PUT", "/user", { email: 5 })).toEqual(overLimit)
  })

  it("/signup checks the captcha, then reads its body, then counts the limit the body picks", async () => {
    // RATE_LIMIT_OTP is spent (above): a sign-up with an address is over it, but only once read.
    expect(await call("POST", "/signup", { email: "b@example.com", password: "long enough pass" })).toEqual(
      captchaFailed
    )
    expect(await call("POST", "/signup", { email: 5, ...good })).toEqual(badJson)
    expect(
      await call("POST", "/signup", { email: "b@example.com", password: "long enough pass", ...good })
    ).toEqual(overLimit)
    // Anonymous sign-ins count against a limit of their own.
    expect((await call("POST", "/signup", { ...good })).status).toBe(200)
  })

  it("/token checks the captcha, refuses an unknown grant uncounted, and counts the rest before reading the body", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await call("POST", "/token?grant_type=password", { email: "c@example.com" })).toEqual(
        captchaFailed
      )
    }
    expect(await call("POST", "/token?grant_type=nonsense", {})).toEqual(captchaFailed)
    expect(await call("POST", "/token?grant_type=nonsense", good)).toEqual({
      status: 400,
      code: "invalid_credentials"
    })
    expect(await call("POST", "/token", good)).toEqual({ status: 400, code: "invalid_credentials" })
    expect(await call("POST", "/token?grant_type=refresh_token", { refresh_token: 5 })).toEqual(badJson)
    expect(await call("POST", "/token?grant_type=refresh_token", { refresh_token: 5 })).toEqual(overLimit)
    expect(await call("POST", "/token?grant_type=password", { email: 5, ...good })).toEqual(overLimit)
    expect(await call("POST", "/token?grant_type=password", { email: 5 })).toEqual(captchaFailed)
  })

  it("/verify counts its limit before reading the body", async () => {
    expect(await call("POST", "/verify", { type: 5 })).toEqual(badJson)
    expect(await call("POST", "/verify", { type: 5 })).toEqual(overLimit)
    expect(await call("GET", "/verify?type=signup&token=x", undefined)).toEqual(overLimit)
  })

  it("the caller is checked before the precondition, which is checked before the input", async () => {
    expect(await call("GET", "/user", undefined)).toEqual({ status: 401, code: "no_authorization" })
    expect(await call("POST", "/logout?scope=nowhere", "{")).toEqual({
      status: 401,
      code: "no_authorization"
    })
    expect(await call("POST", "/admin/custom-providers", "{")).toEqual({
      status: 401,
      code: "no_authorization"
    })
    expect(await call("POST", "/admin/custom-providers", "{", anonKey)).toEqual({
      status: 403,
      code: "not_admin"
    })
    // Custom providers are off: the body is never read.
    expect(await call("POST", "/admin/custom-providers", "{", serviceKey)).toEqual({
      status: 404,
      code: "feature_disabled"
    })
    // The user of the path before the body.
    expect(await call("DELETE", "/admin/users/not-a-uuid", "{", serviceKey)).toEqual({
      status: 404,
      code: "validation_failed"
    })
    expect(await call("POST", "/invite", { email: 5 }, serviceKey)).toEqual(badJson)
  })

  it("/factors refuses an anonymous user before reading the body or counting the limit", async () => {
    const signedUp = await fetch(`${baseUrl}/signup`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify(good)
    })
    const anonymous = String((await jsonObject(signedUp)).access_token)
    const refused = { status: 403, code: "no_authorization" }
    const factorId = crypto.randomUUID()
    expect(await call("POST", "/factors", "{", anonymous)).toEqual(refused)
    expect(await call("POST", `/factors/${factorId}/challenge`, "{", anonymous)).toEqual(refused)
    // MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY is never counted for them: as many as asked, all 403.
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await call("POST", `/factors/${factorId}/verify`, "{", anonymous)).toEqual(refused)
    }
    expect(await call("DELETE", `/factors/${factorId}`, undefined, anonymous)).toEqual(refused)
  })
})
