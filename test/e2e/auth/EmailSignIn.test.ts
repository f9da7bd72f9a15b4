import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import type * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

let mailing: MailingAuth.MailingAuth
let catcher: SmtpCatcher.SmtpCatcher
let baseUrl = ""
let anonKey = ""
let serviceKey = ""

const siteUrl = "http://localhost:3000"

beforeAll(async () => {
  mailing = await MailingAuth.start()
  catcher = mailing.catcher
  baseUrl = mailing.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await mailing.close()
})

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

describe("sign-in by mail and password recovery through supabase-js", () => {
  it("signInWithOtp makes a new user and mails the confirmation, whose code signs in", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    const sent = await supabase.auth.signInWithOtp({ email, options: { data: { plan: "pro" } } })
    expect(sent.error).toBeNull()
    const mail = await Mailbox.mailTo(catcher, email)
    expect(mail.subject).toBe("Confirm your email address")
    const { code } = Mailbox.linkAndCode(mail.text)
    const verified = await supabase.auth.verifyOtp({ email, token: code, type: "email" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.user_metadata).toMatchObject({ plan: "pro" })
    expect(verified.data.user?.email_confirmed_at).toBeTruthy()
  })

  it("a confirmed user gets a magic link, which signs in by redirect; unknown addresses are not told apart", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    await supabase.auth.signInWithOtp({ email })
    await supabase.auth.verifyOtp({
      email,
      token: Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text).code,
      type: "email"
    })

    // Within SMTP_MAX_FREQUENCY only of the same kind: a magic link may follow a confirmation.
    const again = await supabase.auth.signInWithOtp({
      email,
      options: { emailRedirectTo: `${siteUrl}/home` }
    })
    expect(again.error).toBeNull()
    const [, magic] = await Mailbox.mailsTo(catcher, email, 2)
    expect(magic?.subject).toBe("Your sign-in link")
    const { link } = Mailbox.linkAndCode(magic?.text)
    expect(link.searchParams.get("type")).toBe("magiclink")
    const followed = await fetch(link, { redirect: "manual" })
    expect(followed.status).toBe(303)
    const location = followed.headers.get("location") ?? ""
    expect(location.startsWith(`${siteUrl}/home#`)).toBe(true)
    const fragment = Mailbox.fragmentOf(location)
    expect(fragment.get("type")).toBe("magiclink")
    expect((await supabase.auth.getUser(fragment.get("access_token") ?? "")).data.user?.email).toBe(email)

    const tooSoon = await supabase.auth.signInWithOtp({ email })
    expect(SupabaseClientSupport.apiError(tooSoon.error).code).toBe("over_email_send_rate_limit")

    // Nobody's address with shouldCreateUser false: the same empty answer as any other.
    const unknown = await supabase.auth.signInWithOtp({
      email: freshEmail(),
      options: { shouldCreateUser: false }
    })
    expect(unknown.error).toBeNull()
  })

  it("resetPasswordForEmail mails a recovery code that signs in; the new password ends every other session", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    const signedUp = await supabase.auth.signUp({ email, password: "the old password" })
    // Unconfirmed, and its identity stamped at its creation all the same, as Supabase Auth's.
    expect(signedUp.data.user?.identities?.map((identity) => identity.last_sign_in_at)).toEqual([
      signedUp.data.user?.created_at
    ])
    const { code: confirmation } = Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text)
    await supabase.auth.verifyOtp({ email, token: confirmation, type: "signup" })
    await supabase.auth.signOut()
    // Someone else signed in with the old password: the reset is meant to shut them out.
    const thief = SupabaseClientSupport.client(baseUrl, anonKey)
    expect((await thief.auth.signInWithPassword({ email, password: "the old password" })).error).toBeNull()

    const reset = await supabase.auth.resetPasswordForEmail(email, { redirectTo: `${siteUrl}/reset` })
    expect(reset.error).toBeNull()
    const tooSoon = await supabase.auth.resetPasswordForEmail(email)
    expect(SupabaseClientSupport.apiError(tooSoon.error).status).toBe(429)
    const [, recovery] = await Mailbox.mailsTo(catcher, email, 2)
    expect(recovery?.subject).toBe("Reset your password")
    const { link, code } = Mailbox.linkAndCode(recovery?.text)
    expect(link.searchParams.get("type")).toBe("recovery")
    expect(link.searchParams.get("redirect_to")).toBe(`${siteUrl}/reset`)
    const verified = await supabase.auth.verifyOtp({ email, token: code, type: "recovery" })
    expect(verified.error).toBeNull()
    // The user says when the recovery went out until the password changes, as Supabase Auth's.
    expect(verified.data.user?.recovery_sent_at).toEqual(expect.any(String))
    const updated = await supabase.auth.updateUser({ password: "the new password" })
    expect(updated.error).toBeNull()
    expect(updated.data.user?.recovery_sent_at).toBeUndefined()
    // The session the recovery code began goes on; the thief's refresh token and access token
    // no longer work.
    expect((await supabase.auth.getUser()).error).toBeNull()
    const stolen = (await thief.auth.getSession()).data.session
    expect(SupabaseClientSupport.apiError((await thief.auth.refreshSession()).error)).toMatchObject({
      status: 400,
      code: "refresh_token_not_found"
    })
    expect((await thief.auth.getUser(stolen?.access_token)).error?.name).toBe("AuthSessionMissingError")
    await supabase.auth.signOut()
    expect(
      (await supabase.auth.signInWithPassword({ email, password: "the old password" })).error
    ).not.toBeNull()
    expect((await supabase.auth.signInWithPassword({ email, password: "the new password" })).error).toBeNull()

    expect((await supabase.auth.resetPasswordForEmail(freshEmail())).error).toBeNull()
    // The password change ended the recovery code, and with it the spacing from its mail, as in
    // Supabase Auth (its `UpdatePassword` clears `recovery_sent_at`).
    expect((await supabase.auth.resetPasswordForEmail(email)).error).toBeNull()
  })

  it("admin.inviteUserByEmail mails an invitation whose link signs the new user in", async () => {
    const admin = SupabaseClientSupport.client(baseUrl, serviceKey)
    const email = freshEmail()
    const invited = await admin.auth.admin.inviteUserByEmail(email, {
      data: { team: "blue" },
      redirectTo: `${siteUrl}/join`
    })
    expect(invited.error).toBeNull()
    expect(invited.data.user?.invited_at).toBeTruthy()
    expect(invited.data.user?.email_confirmed_at).toBeUndefined()
    const mail = await Mailbox.mailTo(catcher, email)
    expect(mail.subject).toBe("You've been invited")
    const { link } = Mailbox.linkAndCode(mail.text)
    expect(link.searchParams.get("type")).toBe("invite")
    const followed = await fetch(link, { redirect: "manual" })
    const location = followed.headers.get("location") ?? ""
    expect(location.startsWith(`${siteUrl}/join#`)).toBe(true)
    const fragment = Mailbox.fragmentOf(location)
    expect(fragment.get("type")).toBe("invite")
    const user = SupabaseClientSupport.client(baseUrl, anonKey)
    await user.auth.setSession({
      access_token: fragment.get("access_token") ?? "",
      refresh_token: fragment.get("refresh_token") ?? ""
    })
    const joined = await user.auth.updateUser({ password: "a password of my own" })
    expect(joined.error).toBeNull()
    expect(joined.data.user?.user_metadata).toMatchObject({ team: "blue" })
    expect(joined.data.user?.email_confirmed_at).toBeTruthy()

    const again = await admin.auth.admin.inviteUserByEmail(email)
    expect(SupabaseClientSupport.apiError(again.error)).toMatchObject({ status: 422, code: "email_exists" })
    const anon = SupabaseClientSupport.client(baseUrl, anonKey)
    const refused = await anon.auth.admin.inviteUserByEmail(freshEmail())
    expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({ status: 403, code: "not_admin" })
  })

  it("admin.generateLink hands out the link and code a mail would carry, sending nothing", async () => {
    const admin = SupabaseClientSupport.client(baseUrl, serviceKey)
    const email = freshEmail()
    const generated = await admin.auth.admin.generateLink({
      type: "signup",
      email,
      password: "a signup password",
      options: { data: { source: "import" }, redirectTo: `${siteUrl}/welcome` }
    })
    expect(generated.error).toBeNull()
    const properties = generated.data.properties
    expect(properties?.verification_type).toBe("signup")
    expect(properties?.redirect_to).toBe(`${siteUrl}/welcome`)
    expect(properties?.email_otp).toMatch(/^\d{6}$/)
    expect(generated.data.user?.email).toBe(email)
    expect(generated.data.user?.user_metadata).toMatchObject({ source: "import" })
    const actionLink = new URL(properties?.action_link ?? "")
    expect(actionLink.searchParams.get("token")).toBe(properties?.hashed_token)

    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const verified = await supabase.auth.verifyOtp({
      email,
      token: properties?.email_otp ?? "",
      type: "signup"
    })
    expect(verified.error).toBeNull()
    // Confirmed now, and signed up with the password given.
    expect(
      (await supabase.auth.signInWithPassword({ email, password: "a signup password" })).error
    ).toBeNull()

    const recovery = await admin.auth.admin.generateLink({ type: "recovery", email })
    expect(recovery.data.properties?.verification_type).toBe("recovery")
    // The user as written: the link's sending recorded, as Supabase Auth answers.
    expect(recovery.data.user?.recovery_sent_at).toEqual(expect.any(String))
    const followed = await fetch(recovery.data.properties?.action_link ?? "", { redirect: "manual" })
    expect(Mailbox.fragmentOf(followed.headers.get("location")).get("type")).toBe("recovery")

    // A magic link for nobody's address is a sign-up link; recovery needs a user.
    const stranger = freshEmail()
    const magic = await admin.auth.admin.generateLink({ type: "magiclink", email: stranger })
    expect(magic.data.properties?.verification_type).toBe("signup")
    const missing = await admin.auth.admin.generateLink({ type: "recovery", email: freshEmail() })
    expect(SupabaseClientSupport.apiError(missing.error)).toMatchObject({
      status: 404,
      code: "user_not_found",
      message: "User with this email not found"
    })
    // Nothing was mailed for any of these.
    expect(catcher.caught.filter((entry) => entry.to.includes(email) || entry.to.includes(stranger))).toEqual(
      []
    )
  })

  it("reauthenticate mails a nonce, in the subject and the body, that updateUser takes", async () => {
    const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
    const email = freshEmail()
    await supabase.auth.signInWithOtp({ email })
    const { code } = Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text)
    await supabase.auth.verifyOtp({ email, token: code, type: "email" })
    const asked = await supabase.auth.reauthenticate()
    expect(asked.error).toBeNull()
    const [, mail] = await Mailbox.mailsTo(catcher, email, 2)
    const nonce = /^(\d{6}) is your verification code$/.exec(mail?.subject ?? "")?.[1]
    expect(nonce).toBeDefined()
    expect(mail?.text).toContain(`Enter this code to confirm it is you: ${nonce}`)
    expect(SupabaseClientSupport.apiError((await supabase.auth.reauthenticate()).error).status).toBe(429)
    const updated = await supabase.auth.updateUser({ password: "chosen after the nonce", nonce: nonce ?? "" })
    expect(updated.error).toBeNull()
    // A password change ends the nonce and the spacing from its mail, as Supabase Auth's clears
    // `reauthentication_sent_at`.
    expect((await supabase.auth.reauthenticate()).error).toBeNull()
  })

  it("refuses malformed requests with Supabase Auth's messages", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: anonKey },
        body: JSON.stringify(body)
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    expect(await post("/recover", {})).toMatchObject({
      status: 400,
      body: { msg: "Password recovery requires an email" }
    })
    expect(await post("/recover", { email: "not an address" })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed" }
    })
    expect(await post("/otp", {})).toMatchObject({
      status: 400,
      body: { msg: "One of email or phone must be set" }
    })
    expect(await post("/otp", { email: "a@example.com", phone: "+15555550100" })).toMatchObject({
      status: 400,
      body: { msg: "Only an email address or phone number should be provided" }
    })
    expect(await post("/otp", { email: "a@example.com", channel: "sms" })).toMatchObject({
      status: 400,
      body: { msg: "Channel should only be specified with Phone OTP" }
    })
    // No SMS_PROVIDER here: a text cannot be sent, and nothing is written.
    expect(await post("/otp", { phone: "+15555550100" })).toMatchObject({
      status: 422,
      body: { error_code: "sms_send_failed", msg: "Unable to get SMS provider" }
    })
    expect(await post("/magiclink", { email: "" })).toMatchObject({
      status: 422,
      body: { msg: "Password recovery requires an email" }
    })
    expect(await post("/otp", { email: "a@example.com", create_user: "yes" })).toMatchObject({
      status: 400,
      body: { error_code: "bad_json" }
    })
  })
})
