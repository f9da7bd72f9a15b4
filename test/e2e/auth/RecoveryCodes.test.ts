import { randomUUID } from "node:crypto"
import { createClient, type SupabaseClient } from "@supabase/supabase-js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { jsonObject } from "../../support/JsonBody.js"

/**
 * Recovery codes through supabase-js's experimental client (`auth.mfa.recoveryCodes.*`, on with
 * `auth: {experimental: {recoveryCodes: true}}`) against the built service, recovery codes on
 * by default.
 */

const { apiError } = SupabaseClientSupport

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  // Every verify of this file comes from one address: the per-minute limit is not under test.
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({ env: { AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000" } }),
      scope
    )
  )
  baseUrl = running.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const password = "correct horse battery staple"

/** supabase-js with recovery codes switched on, sessions in memory, nothing refreshed behind the test. */
const recoveryClient = (url: string = baseUrl): SupabaseClient =>
  createClient(url, anonKey, {
    auth: {
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      experimental: { recoveryCodes: true }
    }
  })

/** A new user, signed up: their client (aal1) and address. */
const signedUp = async (url: string = baseUrl) => {
  const supabase = recoveryClient(url)
  const email = `user-${randomUUID()}@example.com`
  const signUp = await supabase.auth.signUp({ email, password })
  expect(signUp.error).toBeNull()
  return { supabase, email, token: signUp.data.session?.access_token ?? "" }
}

/** A TOTP factor enrolled and verified: the client's session is aal2 after it. */
const withTotp = async (supabase: SupabaseClient) => {
  const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
  const data = enrolled.data
  if (data === null || data.type !== "totp") throw new Error("expected a TOTP enrolment")
  const code = codeOfStep(data.totp.secret, Math.floor(Date.now() / 1000 / 30))
  expect((await supabase.auth.mfa.challengeAndVerify({ factorId: data.id, code })).error).toBeNull()
  return data.id
}

/** A second sign-in of the user, at aal1. */
const signedInAgain = async (email: string, url: string = baseUrl) => {
  const supabase = recoveryClient(url)
  expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
  return supabase
}

const methods = async (supabase: SupabaseClient) =>
  (await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentAuthenticationMethods.map(
    (entry) => (typeof entry === "string" ? entry : entry.method)
  )

/** A code as a person copies it from a printout: upper case in dashed groups of four. */
const grouped = (code: string) => (code.match(/.{1,4}/g) ?? []).join("-").toUpperCase()

describe("recovery codes through supabase-js", () => {
  it("creates a set at aal2, verifies a code from a new sign-in, refuses it twice, regenerates, deletes", async () => {
    const { supabase, email } = await signedUp()
    expect(apiError((await supabase.auth.mfa.recoveryCodes.getStatus()).error)).toEqual({
      status: 404,
      code: "mfa_factor_not_found",
      message: "Factor not found"
    })
    await withTotp(supabase)
    const generated = await supabase.auth.mfa.recoveryCodes.generate({ friendlyName: "Backup codes" })
    expect(generated.error).toBeNull()
    const set = generated.data
    if (set === null) throw new Error("expected a set")
    expect(set).toMatchObject({ type: "recovery_code", friendly_name: "Backup codes", total: 10 })
    expect(set.codes).toHaveLength(10)
    for (const code of set.codes) expect(code).toMatch(/^[2-9a-hjkmnp-tv-z]{16}$/)
    expect((await supabase.auth.mfa.listFactors()).data?.recovery_code.map((factor) => factor.id)).toEqual([
      set.id
    ])
    expect((await supabase.auth.mfa.recoveryCodes.getStatus()).data).toEqual({
      id: set.id,
      type: "recovery_code",
      total: 10,
      remaining: 10
    })

    // Lost the authenticator: a new sign-in is aal1 and proves the second factor with a code.
    const other = await signedInAgain(email)
    // Asked with the token, auth-js reads the factors from GET /user.
    const token = (await other.auth.getSession()).data.session?.access_token
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel(token)).data).toMatchObject({
      currentLevel: "aal1",
      nextLevel: "aal2"
    })
    const first = set.codes[0] ?? ""
    const verified = await other.auth.mfa.recoveryCodes.verify({ code: ` ${grouped(first)} ` })
    expect(verified.error).toBeNull()
    expect(verified.data?.user.id).toBeDefined()
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal2")
    expect((await methods(other))?.[0]).toBe("mfa/recovery_code")
    // The raised session refreshes at aal2.
    expect((await other.auth.refreshSession()).error).toBeNull()
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal2")

    const third = await signedInAgain(email)
    expect(apiError((await third.auth.mfa.recoveryCodes.verify({ code: first })).error)).toEqual({
      status: 422,
      code: "mfa_verification_failed",
      message: "Invalid recovery code entered"
    })
    expect((await third.auth.mfa.recoveryCodes.getStatus()).data).toMatchObject({ total: 10, remaining: 9 })
    // Managing the set needs aal2.
    for (const refused of [
      await third.auth.mfa.recoveryCodes.generate(),
      await third.auth.mfa.recoveryCodes.regenerate(),
      await third.auth.mfa.recoveryCodes.unenroll()
    ]) {
      expect(apiError(refused.error)).toEqual({
        status: 403,
        code: "insufficient_aal",
        message: "AAL2 session is required to manage recovery codes"
      })
    }

    // A second set is refused; a regeneration replaces the codes under the same factor.
    expect(apiError((await other.auth.mfa.recoveryCodes.generate()).error)).toMatchObject({
      status: 422,
      code: "mfa_verified_factor_exists"
    })
    const regenerated = await other.auth.mfa.recoveryCodes.regenerate()
    expect(regenerated.error).toBeNull()
    expect(regenerated.data).toMatchObject({ id: set.id, friendly_name: "Backup codes", total: 10 })
    const fresh = regenerated.data?.codes ?? []
    expect(fresh.filter((code) => set.codes.includes(code))).toEqual([])
    expect(
      apiError((await third.auth.mfa.recoveryCodes.verify({ code: set.codes[1] ?? "" })).error)
    ).toMatchObject({
      code: "mfa_verification_failed"
    })
    expect((await third.auth.mfa.recoveryCodes.verify({ code: fresh[0] ?? "" })).error).toBeNull()

    const deleted = await third.auth.mfa.recoveryCodes.unenroll()
    expect(deleted.error).toBeNull()
    expect(deleted.data).toEqual({ id: set.id })
    expect(apiError((await third.auth.mfa.recoveryCodes.getStatus()).error)).toMatchObject({
      status: 404,
      code: "mfa_factor_not_found"
    })
    expect((await third.auth.mfa.listFactors()).data?.recovery_code).toEqual([])
    // The session the codes raised is aal1 again at its next refresh.
    expect((await third.auth.refreshSession()).error).toBeNull()
    expect((await third.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal1")
  })

  it("signs out the user's other aal1 sessions; codes go with the last other factor", async () => {
    const { supabase, email } = await signedUp()
    const totpId = await withTotp(supabase)
    const codes = (await supabase.auth.mfa.recoveryCodes.generate()).data?.codes ?? []
    const bystander = await signedInAgain(email)
    const recovering = await signedInAgain(email)
    expect((await recovering.auth.mfa.recoveryCodes.verify({ code: codes[0] ?? "" })).error).toBeNull()
    expect(apiError((await bystander.auth.refreshSession()).error)).toMatchObject({ status: 400 })

    expect((await recovering.auth.mfa.unenroll({ factorId: totpId })).error).toBeNull()
    expect((await recovering.auth.mfa.listFactors()).data?.all).toEqual([])
    expect(apiError((await recovering.auth.mfa.recoveryCodes.getStatus()).error)).toMatchObject({
      code: "mfa_factor_not_found"
    })
  })

  it("locks verification after five wrong codes", async () => {
    const { supabase, email } = await signedUp()
    await withTotp(supabase)
    const codes = (await supabase.auth.mfa.recoveryCodes.generate()).data?.codes ?? []
    const other = await signedInAgain(email)
    for (let i = 0; i < 5; i++) {
      expect(
        apiError((await other.auth.mfa.recoveryCodes.verify({ code: "2222-2222-2222-2222" })).error)
      ).toMatchObject({
        status: 422,
        code: "mfa_verification_failed"
      })
    }
    const locked = apiError((await other.auth.mfa.recoveryCodes.verify({ code: codes[0] ?? "" })).error)
    expect(locked).toMatchObject({ status: 429, code: "mfa_recovery_codes_locked" })
    expect(locked.message).toMatch(/^Too many invalid recovery codes entered, try again after \d+ seconds\.$/)
  })

  it("answers bad input with error codes, never a 500", async () => {
    const { supabase, token } = await signedUp()
    // No other verified factor: no set.
    expect(apiError((await supabase.auth.mfa.recoveryCodes.generate()).error)).toEqual({
      status: 422,
      code: "mfa_recovery_codes_sole_factor",
      message: "Recovery codes require another verified factor"
    })
    expect(apiError((await supabase.auth.mfa.recoveryCodes.verify({ code: "" })).error)).toEqual({
      status: 400,
      code: "validation_failed",
      message: "Code needs to be non-empty"
    })
    expect(apiError((await supabase.auth.mfa.recoveryCodes.verify({ code: "abc" })).error)).toMatchObject({
      status: 422,
      code: "mfa_verification_failed"
    })
    expect(apiError((await supabase.auth.mfa.recoveryCodes.regenerate()).error)).toMatchObject({
      status: 404,
      code: "mfa_factor_not_found"
    })

    const send = async (method: string, path: string, body?: string, bearer: string | null = token) => {
      const headers: Record<string, string> = { apikey: anonKey, "content-type": "application/json" }
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`
      const answer = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body })
      })
      const json = await jsonObject(answer)
      return [answer.status, json.error_code]
    }
    expect(await send("POST", "/factors/recovery-codes/verify", '{"code": 5}')).toEqual([400, "bad_json"])
    expect(await send("POST", "/factors/recovery-codes/verify", "not json")).toEqual([400, "bad_json"])
    expect(await send("POST", "/factors/recovery-codes", '{"friendly_name": []}')).toEqual([400, "bad_json"])
    expect(await send("POST", "/factors/recovery-codes/verify", "{}")).toEqual([400, "validation_failed"])
    expect(await send("GET", "/factors/recovery-codes", undefined, null)).toEqual([401, "no_authorization"])
    // Routed before /factors/{factor_id}: never "factor_id must be an UUID".
    expect(await send("DELETE", "/factors/recovery-codes")).toEqual([404, "mfa_factor_not_found"])

    const anonymous = recoveryClient()
    expect((await anonymous.auth.signInAnonymously()).error).toBeNull()
    expect(apiError((await anonymous.auth.mfa.recoveryCodes.getStatus()).error)).toEqual({
      status: 403,
      code: "no_authorization",
      message: "Anonymous user not allowed to perform these actions"
    })
  })
})

describe("MAILER_NOTIFICATIONS_MFA_RECOVERY_CODE_USED_ENABLED through supabase-js", () => {
  let mailing: MailingAuth.MailingAuth
  let serviceKey = ""

  beforeAll(async () => {
    mailing = await MailingAuth.start({ AUTHSVC_MAILER_NOTIFICATIONS_MFA_RECOVERY_CODE_USED_ENABLED: "true" })
    serviceKey = await SupabaseClientSupport.apiKey("service_role")
  }, 60_000)

  afterAll(async () => {
    await mailing.close()
  })

  it("tells the user's address that a code was used and how many are left", async () => {
    const email = `user-${randomUUID()}@example.com`
    const admin = SupabaseClientSupport.client(mailing.baseUrl, serviceKey).auth.admin
    expect((await admin.createUser({ email, password, email_confirm: true })).error).toBeNull()
    const supabase = await signedInAgain(email, mailing.baseUrl)
    await withTotp(supabase)
    const codes = (await supabase.auth.mfa.recoveryCodes.generate()).data?.codes ?? []
    const other = await signedInAgain(email, mailing.baseUrl)
    expect((await other.auth.mfa.recoveryCodes.verify({ code: codes[0] ?? "" })).error).toBeNull()
    const mail = await Mailbox.mailTo(mailing.catcher, email)
    expect(mail.subject).toBe("A recovery code was used to sign in to your account")
    expect(mail.text).toContain(`A recovery code of ${email} was used`)
    expect(mail.text).toContain("9 unused codes are left.")
  })
})
