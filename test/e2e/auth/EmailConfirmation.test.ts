import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

let scope: Scope.CloseableScope
let catcher: SmtpCatcher.SmtpCatcher
let baseUrl = ""
/** The same service with no spacing between two mails (`SMTP_MAX_FREQUENCY=0`). */
let unspaced = ""
let anonKey = ""

const siteUrl = "http://localhost:3000"

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  catcher = await Effect.runPromise(Scope.extend(SmtpCatcher.start, scope))
  const env = { ...SmtpCatcher.mailingEnv(catcher), AUTHSVC_SMTP_SENDER_NAME: "Example Auth" }
  const [running, second] = await Effect.runPromise(
    Scope.extend(
      Effect.all(
        [
          AuthServerHarness.start({ env }),
          AuthServerHarness.start({ env: { ...env, AUTHSVC_SMTP_MAX_FREQUENCY: "0" } })
        ],
        { concurrency: "unbounded" }
      ),
      scope
    )
  )
  baseUrl = running.baseUrl
  unspaced = second.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const password = "correct horse battery staple"
const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

const mailsTo = (to: string, count: number) => Mailbox.mailsTo(catcher, to, count)
const mailTo = (to: string) => Mailbox.mailTo(catcher, to)
const { linkAndCode, fragmentOf } = Mailbox

describe("email confirmation through supabase-js, with the mail really delivered", () => {
  it("sign-up mails a link and a code; the code signs the user in and confirms the address", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    const signUp = await supabase.auth.signUp({
      email,
      password,
      options: { emailRedirectTo: `${siteUrl}/welcome` }
    })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session).toBeNull()
    expect(signUp.data.user?.confirmation_sent_at).toBeDefined()
    expect(signUp.data.user?.user_metadata).toMatchObject({ email, email_verified: false })
    const early = await supabase.auth.signInWithPassword({ email, password })
    expect(SupabaseClientSupport.apiError(early.error).code).toBe("email_not_confirmed")

    const mail = await mailTo(email)
    expect(mail.subject).toBe("Confirm your email address")
    expect(mail.from?.value).toEqual([{ name: "Example Auth", address: "auth@example.com" }])
    const { link, code } = linkAndCode(mail.text)
    expect(code).toMatch(/^\d{6}$/)
    expect(`${link.origin}${link.pathname}`).toBe(`${baseUrl}/verify`)
    expect(link.searchParams.get("type")).toBe("signup")
    expect(link.searchParams.get("redirect_to")).toBe(`${siteUrl}/welcome`)
    expect(mail.html).toContain(`href="${link.toString().replaceAll("&", "&amp;")}"`)

    const wrong = await supabase.auth.verifyOtp({
      email,
      token: code === "000000" ? "111111" : "000000",
      type: "email"
    })
    expect(SupabaseClientSupport.apiError(wrong.error)).toEqual({
      status: 403,
      code: "otp_expired",
      message: "Token has expired or is invalid"
    })
    const verified = await supabase.auth.verifyOtp({ email, token: code, type: "email" })
    expect(verified.error).toBeNull()
    expect(verified.data.session?.access_token).toBeTruthy()
    expect(verified.data.user?.email_confirmed_at).toBeTruthy()
    // Confirmed as Supabase Auth confirms: the metadata and the email identity say so.
    expect(verified.data.user?.user_metadata).toMatchObject({ email, email_verified: true })
    expect(verified.data.user?.identities?.map((identity) => identity.identity_data?.email_verified)).toEqual(
      [true]
    )
    // Used up: the same code and the link no longer work; the password now does.
    const again = await supabase.auth.verifyOtp({ email, token: code, type: "email" })
    expect(SupabaseClientSupport.apiError(again.error).code).toBe("otp_expired")
    const followed = await fetch(link, { redirect: "manual" })
    expect(followed.status).toBe(303)
    expect(Object.fromEntries(fragmentOf(followed.headers.get("location")))).toEqual({
      error: "access_denied",
      error_code: "otp_expired",
      error_description: "Email link is invalid or has expired",
      sb: ""
    })
    const signIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signIn.error).toBeNull()
  })

  it("following the link signs in and redirects with the session in the fragment", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    await supabase.auth.signUp({ email, password, options: { emailRedirectTo: `${siteUrl}/welcome` } })
    const { link } = linkAndCode((await mailTo(email)).text)
    const followed = await fetch(link, { redirect: "manual" })
    expect(followed.status).toBe(303)
    const location = followed.headers.get("location") ?? ""
    expect(location.startsWith(`${siteUrl}/welcome#`)).toBe(true)
    const fragment = fragmentOf(location)
    expect(fragment.get("type")).toBe("signup")
    expect(fragment.get("token_type")).toBe("bearer")
    expect(Number(fragment.get("expires_in"))).toBe(3600)
    const user = await supabase.auth.getUser(fragment.get("access_token") ?? "")
    expect(user.data.user?.email).toBe(email)
    expect(user.data.user?.email_confirmed_at).toBeTruthy()
    const session = await supabase.auth.setSession({
      access_token: fragment.get("access_token") ?? "",
      refresh_token: fragment.get("refresh_token") ?? ""
    })
    expect(session.error).toBeNull()
  })

  it("the link's token works as token_hash in verifyOtp, and a foreign redirect_to falls back to SITE_URL", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    await supabase.auth.signUp({
      email,
      password,
      options: { emailRedirectTo: "https://evil.example/steal" }
    })
    const { link } = linkAndCode((await mailTo(email)).text)
    expect(link.searchParams.get("redirect_to")).toBe(siteUrl)
    const verified = await supabase.auth.verifyOtp({
      token_hash: link.searchParams.get("token") ?? "",
      type: "signup"
    })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.email).toBe(email)
    const unknown = await supabase.auth.verifyOtp({ token_hash: "lkv_not-a-token", type: "signup" })
    expect(SupabaseClientSupport.apiError(unknown.error)).toEqual({
      status: 403,
      code: "otp_expired",
      message: "Email link is invalid or has expired"
    })
  })

  it("refuses malformed verifications with Supabase Auth's messages", async () => {
    const post = (body: unknown) =>
      fetch(`${baseUrl}/verify`, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: anonKey },
        body: JSON.stringify(body)
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    expect(await post({ token: "1" })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: "Verify requires a verification type" }
    })
    expect(await post({ type: "signup" })).toMatchObject({
      status: 400,
      body: { msg: "Verify requires a token or a token hash" }
    })
    expect(await post({ type: "nonsense", token: "1", email: "a@example.com" })).toMatchObject({
      status: 400,
      body: { msg: "Unsupported verification type" }
    })
    expect(await post({ type: "signup", token_hash: "x", email: "a@example.com" })).toMatchObject({
      status: 400,
      body: { msg: "Only the token_hash and type should be provided" }
    })
    expect(await post({ type: "email", token: "123456", email: "not an address" })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed" }
    })
    // An address nobody has gets the answer of a wrong code.
    expect(await post({ type: "email", token: "123456", email: freshEmail() })).toMatchObject({
      status: 403,
      body: { error_code: "otp_expired", msg: "Token has expired or is invalid" }
    })
  })

  it("resend mails a new link and code that replace the last ones; too soon, it is refused", async () => {
    const spaced = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    await spaced.auth.signUp({ email, password })
    const tooSoon = await spaced.auth.resend({ type: "signup", email })
    const refused = SupabaseClientSupport.apiError(tooSoon.error)
    expect(refused.status).toBe(429)
    expect(refused.code).toBe("over_email_send_rate_limit")
    expect(refused.message).toMatch(
      /^For security purposes, you can only request this after (89\d|900) seconds\.$/
    )
    // Nobody's address, and a confirmed one, get the empty answer.
    expect((await spaced.auth.resend({ type: "signup", email: freshEmail() })).error).toBeNull()

    const supabase = SupabaseClientSupport.client(unspaced, anonKey)
    const other = freshEmail()
    await supabase.auth.signUp({ email: other, password })
    const first = linkAndCode((await mailTo(other)).text)
    const resent = await supabase.auth.resend({ type: "signup", email: other })
    expect(resent.error).toBeNull()
    const [, secondMail] = await mailsTo(other, 2)
    const second = linkAndCode(secondMail?.text)
    expect(second.link.toString()).not.toBe(first.link.toString())
    const stale = await supabase.auth.verifyOtp({
      token_hash: first.link.searchParams.get("token") ?? "",
      type: "signup"
    })
    expect(SupabaseClientSupport.apiError(stale.error).code).toBe("otp_expired")
    const verified = await supabase.auth.verifyOtp({ email: other, token: second.code, type: "signup" })
    expect(verified.error).toBeNull()
    // Confirmed now: the empty answer (test/application/auth/Confirmation.test.ts shows nothing is queued).
    expect((await supabase.auth.resend({ type: "signup", email: other })).error).toBeNull()

    const missing = await supabase.auth.resend({ type: "signup", email: "" })
    expect(SupabaseClientSupport.apiError(missing.error)).toMatchObject({
      status: 400,
      code: "validation_failed",
      message: "Type provided requires an email address"
    })
  })
})
