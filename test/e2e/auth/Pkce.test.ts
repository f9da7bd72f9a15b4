import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import type * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

let mailing: MailingAuth.MailingAuth
let catcher: SmtpCatcher.SmtpCatcher
let baseUrl = ""
let anonKey = ""

const siteUrl = "http://localhost:3000"

beforeAll(async () => {
  mailing = await MailingAuth.start()
  catcher = mailing.catcher
  baseUrl = mailing.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  await mailing.close()
})

const pkceClient = () => SupabaseClientSupport.pkceClient(baseUrl, anonKey)

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

/** Follows a mailed link and returns the `code` of the redirect to the application. */
const codeFrom = async (link: URL, target: string) => {
  const followed = await fetch(link, { redirect: "manual" })
  expect(followed.status).toBe(303)
  const location = new URL(followed.headers.get("location") ?? "")
  expect(`${location.origin}${location.pathname}`).toBe(target)
  expect(location.hash).toBe("")
  return location.searchParams.get("code") ?? ""
}

describe("the PKCE flow of mailed links, through supabase-js with flowType pkce", () => {
  it("sign-up: the link redirects with a code that exchangeCodeForSession turns into a session, once", async () => {
    const supabase = pkceClient()
    const email = freshEmail()
    const signUp = await supabase.auth.signUp({
      email,
      password: "correct horse battery staple",
      options: { emailRedirectTo: `${siteUrl}/callback` }
    })
    expect(signUp.error).toBeNull()
    const { link } = Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text)
    const code = await codeFrom(link, `${siteUrl}/callback`)
    expect(code).not.toBe("")
    const exchanged = await supabase.auth.exchangeCodeForSession(code)
    expect(exchanged.error).toBeNull()
    expect(exchanged.data.user?.email).toBe(email)
    expect(exchanged.data.user?.email_confirmed_at).toBeTruthy()
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email)

    const post = (body: unknown) =>
      fetch(`${baseUrl}/token?grant_type=pkce`, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: anonKey },
        body: JSON.stringify(body)
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    // Used: the same code again is unknown.
    expect(await post({ auth_code: code, code_verifier: "x".repeat(43) })).toMatchObject({
      status: 404,
      body: { error_code: "flow_state_not_found" }
    })
    expect(await post({ auth_code: code })).toMatchObject({
      status: 400,
      body: { msg: "invalid request: both auth code and code verifier should be non-empty" }
    })
  })

  it("recovery and magic links follow the same flow; a wrong verifier ends the code", async () => {
    const supabase = pkceClient()
    const email = freshEmail()
    await supabase.auth.signInWithOtp({ email, options: { emailRedirectTo: `${siteUrl}/callback` } })
    const first = Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text)
    const signedIn = await supabase.auth.exchangeCodeForSession(
      await codeFrom(first.link, `${siteUrl}/callback`)
    )
    expect(signedIn.error).toBeNull()

    const other = pkceClient()
    await other.auth.resetPasswordForEmail(email, { redirectTo: `${siteUrl}/reset` })
    const [, recovery] = await Mailbox.mailsTo(catcher, email, 2)
    const code = await codeFrom(Mailbox.linkAndCode(recovery?.text).link, `${siteUrl}/reset`)
    const wrong = await fetch(`${baseUrl}/token?grant_type=pkce`, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: anonKey },
      body: JSON.stringify({
        auth_code: code,
        code_verifier: "a-verifier-that-is-not-the-one-the-client-kept-123"
      })
    })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ error_code: "bad_code_verifier" })
    const late = await other.auth.exchangeCodeForSession(code)
    expect(SupabaseClientSupport.apiError(late.error).code).toBe("flow_state_not_found")
  })

  it("refuses a challenge method other than S256 or plain, before anything is written", async () => {
    const email = freshEmail()
    const response = await fetch(`${baseUrl}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: anonKey },
      body: JSON.stringify({
        email,
        password: "correct horse battery staple",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "sha1"
      })
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "code challenge method not supported"
    })
    // Nothing was written: the address signs up afterwards as new.
    const supabase = pkceClient()
    const signUp = await supabase.auth.signUp({ email, password: "correct horse battery staple" })
    expect(signUp.error).toBeNull()
    expect(signUp.data.user?.identities).toHaveLength(1)
  })
})
