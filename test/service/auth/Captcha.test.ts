import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CaptchaProviders from "../../../adapters/captcha/auth/CaptchaProviders.js"
import * as HCaptchaFake from "../../support/auth/captcha/HCaptchaFake.js"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as Allowed from "../../support/outbound/Allowed.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

const secret = "0x-hcaptcha-secret-of-the-site"

let scope: Scope.CloseableScope
let hcaptcha: SiteVerifyFake.Fake
let baseUrl = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  hcaptcha = await Effect.runPromise(Scope.extend(HCaptchaFake.start(secret), scope))
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({
        env: {
          AUTHSVC_SECURITY_CAPTCHA_ENABLED: "true",
          AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "hcaptcha",
          AUTHSVC_SECURITY_CAPTCHA_SECRET: secret
        },
        // The real hCaptcha adapter, pointed at the local fake of its siteverify.
        captcha: CaptchaProviders.layer(
          Option.some({
            provider: "hcaptcha",
            secret: Redacted.make(secret),
            timeout: Duration.seconds(2),
            baseUrl: hcaptcha.baseUrl,
            // The fake listens on 127.0.0.1, which the outbound guard refuses unless allowed.
            allowedPrivateAddresses: Allowed.localhost
          })
        )
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
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
    expect(sent).toMatchObject({ secret, response: "a-good-token", remoteip: "127.0.0.1" })
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
