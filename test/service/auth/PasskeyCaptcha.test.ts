import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as CaptchaAuth from "../support/CaptchaAuth.js"
import * as InProcessAuth from "../support/InProcessAuth.js"

let auth: CaptchaAuth.CaptchaAuth

beforeAll(async () => {
  auth = await CaptchaAuth.start(
    {
      AUTHSVC_PASSKEY_ENABLED: "true",
      AUTHSVC_RATE_LIMIT_PASSKEY: "2",
      AUTHSVC_WEBAUTHN_RP_ID: "localhost",
      AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "latchkey",
      AUTHSVC_WEBAUTHN_RP_ORIGINS: "http://localhost:3000"
    },
    // Time stands still for the instance: the limit's five-minute window holds all three requests.
    { clock: InProcessAuth.standingClock(new Date()) }
  )
}, 60_000)

afterAll(async () => {
  await auth.close()
})

describe("passkey sign-in options behind the captcha and RATE_LIMIT_PASSKEY", () => {
  it("count every request from the address first, then need a token the provider accepts", async () => {
    const supabase = SupabaseClientSupport.client(auth.baseUrl, auth.anonKey)
    auth.hcaptcha.reply = SiteVerifyFake.pass
    const missing = await supabase.auth.passkey.startAuthentication()
    expect(SupabaseClientSupport.apiError(missing.error)).toMatchObject({
      status: 400,
      code: "captcha_failed"
    })
    const passed = await supabase.auth.passkey.startAuthentication({
      options: { captchaToken: "a-good-token" }
    })
    expect(passed.error).toBeNull()
    expect(passed.data).toMatchObject({ challenge_id: expect.any(String), options: { rpId: "localhost" } })
    expect(Object.fromEntries(auth.hcaptcha.received.at(-1)?.fields ?? [])).toMatchObject({
      response: "a-good-token"
    })
    // The third within five minutes, the captcha's refusal counted too, as Supabase Auth's limiter runs first.
    const limited = await supabase.auth.passkey.startAuthentication({
      options: { captchaToken: "a-good-token" }
    })
    expect(SupabaseClientSupport.apiError(limited.error)).toMatchObject({
      status: 429,
      code: "over_request_rate_limit"
    })
  })
})
