import type { SupabaseClient } from "@supabase/supabase-js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

// Two instances: the default secure email change, and one where only the new address confirms.
let secure: MailingAuth.MailingAuth
let simple: MailingAuth.MailingAuth
let anonKey = ""
let serviceKey = ""

const siteUrl = "http://localhost:3000"

beforeAll(async () => {
  ;[secure, simple] = await Promise.all([
    MailingAuth.start({ AUTHSVC_MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED: "true" }),
    MailingAuth.start({ AUTHSVC_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "false" })
  ])
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await Promise.all([secure?.close(), simple?.close()])
})

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

/** A confirmed user, signed in on the returned client. */
const confirmedUser = async (auth: MailingAuth.MailingAuth) => {
  const supabase = SupabaseClientSupport.client(auth.baseUrl, anonKey)
  const email = freshEmail()
  await supabase.auth.signUp({ email, password: "a long enough password" })
  const { code } = Mailbox.linkAndCode((await Mailbox.mailTo(auth.catcher, email)).text)
  const verified = await supabase.auth.verifyOtp({ email, token: code, type: "signup" })
  expect(verified.error).toBeNull()
  return { supabase, email }
}

const emailOf = async (supabase: SupabaseClient) => (await supabase.auth.getUser()).data.user?.email

describe("changing the email address through supabase-js updateUser", () => {
  it("secure change: both addresses get a link and code, and the address changes once both are used", async () => {
    const { supabase, email } = await confirmedUser(secure)
    const next = freshEmail()
    const asked = await supabase.auth.updateUser({ email: next }, { emailRedirectTo: `${siteUrl}/changed` })
    expect(asked.error).toBeNull()
    expect(asked.data.user?.email).toBe(email)
    expect(asked.data.user?.new_email).toBe(next)
    expect(asked.data.user?.email_change_sent_at).toBeTruthy()

    const [, toCurrent] = await Mailbox.mailsTo(secure.catcher, email, 2)
    const toNew = await Mailbox.mailTo(secure.catcher, next)
    expect(toCurrent?.subject).toBe("Confirm your new email address")
    expect(toNew.subject).toBe("Confirm your new email address")
    const current = Mailbox.linkAndCode(toCurrent?.text)
    const fresh = Mailbox.linkAndCode(toNew.text)
    expect(current.link.searchParams.get("type")).toBe("email_change")
    expect(current.link.searchParams.get("redirect_to")).toBe(`${siteUrl}/changed`)
    expect(current.code).not.toBe(fresh.code)

    // The current address's link: accepted, the other address still to confirm.
    const followed = await fetch(current.link, { redirect: "manual" })
    expect(followed.status).toBe(303)
    const location = followed.headers.get("location") ?? ""
    expect(location.startsWith(`${siteUrl}/changed#`)).toBe(true)
    expect(Mailbox.fragmentOf(location).get("message")).toBe(
      "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    )
    expect(await emailOf(supabase)).toBe(email)
    // Used once only.
    const again = await fetch(current.link, { redirect: "manual" })
    expect(Mailbox.fragmentOf(again.headers.get("location")).get("error_code")).toBe("otp_expired")

    // The new address's code, typed: the change lands, and a session comes with it.
    const verified = await supabase.auth.verifyOtp({ email: next, token: fresh.code, type: "email_change" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.email).toBe(next)
    expect(verified.data.user?.new_email).toBeUndefined()
    expect(await emailOf(supabase)).toBe(next)
    expect(verified.data.user?.identities?.[0]?.identity_data?.email).toBe(next)

    // The old address hears of it (MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED).
    const [, , notice] = await Mailbox.mailsTo(secure.catcher, email, 3)
    expect(notice?.subject).toBe("Your email address was changed")

    // The old address no longer signs in; the new one does.
    await supabase.auth.signOut()
    expect(
      (await supabase.auth.signInWithPassword({ email, password: "a long enough password" })).error
    ).not.toBeNull()
    expect(
      (await supabase.auth.signInWithPassword({ email: next, password: "a long enough password" })).error
    ).toBeNull()
  })

  it("POST /verify answers Supabase Auth's note for the first of two codes", async () => {
    const { supabase, email } = await confirmedUser(secure)
    const next = freshEmail()
    await supabase.auth.updateUser({ email: next })
    const [, toCurrent] = await Mailbox.mailsTo(secure.catcher, email, 2)
    const response = await fetch(`${secure.baseUrl}/verify`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ type: "email_change", email, token: Mailbox.linkAndCode(toCurrent?.text).code })
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      msg: "Confirmation link accepted. Please proceed to confirm link sent to the other email",
      code: "200"
    })
    expect(await emailOf(supabase)).toBe(email)
  })

  it("resend type email_change replaces the codes; an address already taken is refused", async () => {
    const { supabase, email } = await confirmedUser(simple)
    const taken = await confirmedUser(simple)
    const refused = await supabase.auth.updateUser({ email: taken.email })
    expect(SupabaseClientSupport.apiError(refused.error)).toMatchObject({ status: 422, code: "email_exists" })

    const next = freshEmail()
    expect((await supabase.auth.updateUser({ email: next })).error).toBeNull()
    const first = Mailbox.linkAndCode((await Mailbox.mailTo(simple.catcher, next)).text)
    // Without secure email change the current address gets nothing.
    expect(simple.catcher.caught.filter((entry) => entry.to.includes(email))).toHaveLength(1)

    const tooSoon = await supabase.auth.resend({ type: "email_change", email })
    expect(SupabaseClientSupport.apiError(tooSoon.error)).toMatchObject({ status: 429 })
    const nothingPending = await supabase.auth.resend({ type: "email_change", email: taken.email })
    expect(nothingPending.error).toBeNull()

    // One confirmation is enough here: following the new address's link changes it at once.
    const followed = await fetch(first.link, { redirect: "manual" })
    const fragment = Mailbox.fragmentOf(followed.headers.get("location"))
    expect(fragment.get("type")).toBe("email_change")
    const signedIn = await supabase.auth.getUser(fragment.get("access_token") ?? "")
    expect(signedIn.data.user?.email).toBe(next)
    expect(signedIn.data.user?.email_confirmed_at).toBeTruthy()
  })

  it("an anonymous user adding an address gets one mail, which confirms it and names no old address", async () => {
    const supabase = SupabaseClientSupport.client(secure.baseUrl, anonKey)
    const anonymous = await supabase.auth.signInAnonymously()
    expect(anonymous.error).toBeNull()
    const next = freshEmail()
    const asked = await supabase.auth.updateUser({ email: next })
    expect(asked.error).toBeNull()
    expect(asked.data.user?.new_email).toBe(next)
    const mail = await Mailbox.mailTo(secure.catcher, next)
    expect(mail.subject).toBe("Confirm your new email address")
    expect(mail.text).toContain(`Confirm ${next} as the email address of your account at ${siteUrl}.`)
    expect(mail.text).not.toContain(" from ")
    expect(mail.html).toContain(`Confirm ${next} as the email address of your account`)
    const { code } = Mailbox.linkAndCode(mail.text)
    const verified = await supabase.auth.verifyOtp({ email: next, token: code, type: "email_change" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.email).toBe(next)
    expect(verified.data.user?.is_anonymous).toBe(false)
  })

  it("admin.generateLink email_change_new returns a link that changes the address", async () => {
    const admin = SupabaseClientSupport.client(simple.baseUrl, serviceKey)
    const { supabase, email } = await confirmedUser(simple)
    const next = freshEmail()
    const generated = await admin.auth.admin.generateLink({ type: "email_change_new", email, newEmail: next })
    expect(generated.error).toBeNull()
    expect(generated.data.properties?.verification_type).toBe("email_change_new")
    expect(generated.data.user?.new_email).toBe(next)
    const hashed = generated.data.properties?.hashed_token ?? ""
    const verified = await supabase.auth.verifyOtp({ token_hash: hashed, type: "email_change" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.email).toBe(next)

    const current = await admin.auth.admin.generateLink({
      type: "email_change_current",
      email: next,
      newEmail: freshEmail()
    })
    expect(SupabaseClientSupport.apiError(current.error)).toMatchObject({
      status: 400,
      code: "validation_failed"
    })
  })
})
