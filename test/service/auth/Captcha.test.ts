import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as CaptchaAuth from "../support/CaptchaAuth.js"

let auth: CaptchaAuth.CaptchaAuth
let hcaptcha: SiteVerifyFake.Fake
let baseUrl = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  auth = await CaptchaAuth.start()
  hcaptcha = auth.hcaptcha
  baseUrl = auth.baseUrl
  anonKey = auth.anonKey
  serviceKey = auth.serviceKey
}, 60_000)

afterAll(async () => {
  await auth.close()
})

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

describe("captcha protection (SECURITY_CAPTCHA_ENABLED) through supabase-js, verified with hCaptcha", () => {
  it("sign-up needs a token the provider accepts; the token and the client's address go to the provider", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    hcaptcha.reply = SiteVerifyFake.pass
    const missing = await supabase.auth.signUp({ email, password: "a long enough password" })
    expect(SupabaseClientSupport.apiError(missing.error)).toMatchObject({
      status: 400,
      code: "captcha_failed",
      message: "captcha protection: request disallowed (no captcha_token found)"
    })

    hcaptcha.reply = SiteVerifyFake.refuse(["invalid-input-response"])
    const refused = await supabase.auth.signUp({
      email,
      password: "a long enough password",
      options: { captchaToken: "a-bad-token" }
    })
    expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({
      status: 400,
      code: "captcha_failed",
      message: "captcha protection: request disallowed (invalid-input-response)"
    })

    hcaptcha.reply = SiteVerifyFake.pass
    const signedUp = await supabase.auth.signUp({
      email,
      password: "a long enough password",
      options: { captchaToken: "a-good-token" }
    })
    expect(signedUp.error).toBeNull()
    const sent = Object.fromEntries(hcaptcha.received.at(-1)?.fields ?? [])
    expect(sent).toMatchObject({
      secret: CaptchaAuth.secret,
      response: "a-good-token",
      remoteip: "127.0.0.1"
    })
    expect(hcaptcha.problems).toEqual([])

    // A password sign-in needs one too; refreshing the session does not.
    const noToken = await supabase.auth.signInWithPassword({ email, password: "a long enough password" })
    expect(SupabaseClientSupport.apiError(noToken.error).code).toBe("captcha_failed")
    const signedIn = await supabase.auth.signInWithPassword({
      email,
      password: "a long enough password",
      options: { captchaToken: "another-good-token" }
    })
    expect(signedIn.error).toBeNull()
    hcaptcha.reply = SiteVerifyFake.refuse(["should-not-be-asked"])
    expect((await supabase.auth.refreshSession()).error).toBeNull()
  })

  it("guards the mail-sending endpoints, lets the service role through, and refuses when the provider gives no verdict", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    hcaptcha.reply = SiteVerifyFake.refuse(["invalid-input-response"])
    for (const attempt of [
      supabase.auth.signInWithOtp({ email: freshEmail() }),
      supabase.auth.resetPasswordForEmail(freshEmail()),
      supabase.auth.resend({ type: "signup", email: freshEmail() }),
      supabase.auth.signInAnonymously()
    ]) {
      expect(SupabaseClientSupport.apiError((await attempt).error).code).toBe("captcha_failed")
    }

    const asked = hcaptcha.received.length
    const admin = SupabaseClientSupport.client(baseUrl, serviceKey)
    expect(
      (await admin.auth.signUp({ email: freshEmail(), password: "a long enough password" })).error
    ).toBeNull()
    expect(hcaptcha.received).toHaveLength(asked)

    hcaptcha.reply = SiteVerifyFake.answer(502, "<html>bad gateway</html>")
    // supabase-js reads any 5xx as retryable without its body; the body is Supabase Auth's.
    const unavailable = await fetch(`${baseUrl}/otp`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: freshEmail(), gotrue_meta_security: { captcha_token: "a-good-token" } })
    })
    expect(unavailable.status).toBe(500)
    expect(await unavailable.json()).toMatchObject({
      code: 500,
      error_code: "unexpected_failure",
      msg: "captcha verification process failed"
    })
  })
})
