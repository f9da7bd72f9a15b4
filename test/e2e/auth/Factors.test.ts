import { randomUUID } from "node:crypto"
import type { SupabaseClient } from "@supabase/supabase-js"
import * as OTPAuth from "otpauth"
import { describe, expect, it } from "vitest"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import * as AuthServerPerFile from "../../support/auth/AuthServerPerFile.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

/**
 * Factor enrolment through supabase-js (`auth.mfa.enroll`, `listFactors`, `unenroll`,
 * `auth.admin.mfa.*`) against the built service with Supabase Auth's defaults: TOTP on, phone
 * factors off.
 */

const { apiError } = SupabaseClientSupport

const server = AuthServerPerFile.start()

const admin = () => server.admin()
const password = "correct horse battery staple"

/** A new user signed in through supabase-js. */
const signedIn = async (): Promise<{
  supabase: SupabaseClient
  email: string
  userId: string
  token: string
}> => {
  const supabase = server.client()
  const email = `user-${randomUUID()}@example.com`
  const signUp = await supabase.auth.signUp({ email, password })
  expect(signUp.error).toBeNull()
  return {
    supabase,
    email,
    userId: signUp.data.user?.id ?? "",
    token: signUp.data.session?.access_token ?? ""
  }
}

const dataUrlPrefix = "data:image/svg+xml;utf-8,"

describe("factor enrolment through supabase-js", () => {
  it("enrols TOTP: a secret, its otpauth URI and an SVG QR code a data URL holds", async () => {
    const { supabase, email } = await signedIn()
    const enrolled = await supabase.auth.mfa.enroll({
      factorType: "totp",
      friendlyName: "phone app",
      issuer: "Acme"
    })
    expect(enrolled.error).toBeNull()
    const data = enrolled.data
    if (data === null || data.type !== "totp") throw new Error("expected a TOTP enrolment")
    expect(data.friendly_name).toBe("phone app")
    expect(data.totp.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(data.totp.uri).toBe(
      `otpauth://totp/Acme:${email}?algorithm=SHA1&digits=6&issuer=Acme&period=30&secret=${data.totp.secret}`
    )
    // Another implementation reads the URI back to the same parameters and secret.
    const parsed = OTPAuth.URI.parse(data.totp.uri)
    if (!(parsed instanceof OTPAuth.TOTP)) throw new Error("expected a TOTP URI")
    expect([parsed.issuer, parsed.label, parsed.algorithm, parsed.digits, parsed.period]).toEqual([
      "Acme",
      email,
      "SHA1",
      6,
      30
    ])
    expect(parsed.secret.base32).toBe(data.totp.secret)
    expect(parsed.secret.bytes.length).toBe(20)
    // auth-js prefixes the markup without encoding it: no `#` or `%` may cut or garble it.
    expect(data.totp.qr_code.startsWith(`${dataUrlPrefix}<svg `)).toBe(true)
    expect(data.totp.qr_code.endsWith("</svg>")).toBe(true)
    expect(data.totp.qr_code).not.toMatch(/[#%]/)
  })

  it("lists factors on the user (getUser, listFactors) and unenrols an unverified one", async () => {
    const { supabase, userId } = await signedIn()
    expect((await supabase.auth.getUser()).data.user?.factors).toBeUndefined()
    const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
    const id = enrolled.data?.id ?? ""
    const user = (await supabase.auth.getUser()).data.user
    expect(user?.factors).toEqual([
      {
        id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        status: "unverified",
        friendly_name: "app",
        factor_type: "totp",
        phone: "",
        last_challenged_at: null
      }
    ])
    const listed = await supabase.auth.mfa.listFactors()
    expect(listed.error).toBeNull()
    expect(listed.data?.all.map((factor) => factor.id)).toEqual([id])
    // Only verified factors are put in their type's bucket.
    expect(listed.data?.totp).toEqual([])

    const adminListed = await admin().mfa.listFactors({ userId })
    expect(adminListed.data?.factors.map((factor) => factor.id)).toEqual([id])

    const unenrolled = await supabase.auth.mfa.unenroll({ factorId: id })
    expect(unenrolled.error).toBeNull()
    expect(unenrolled.data).toEqual({ id })
    expect((await supabase.auth.mfa.listFactors()).data?.all).toEqual([])
    expect((await admin().mfa.listFactors({ userId })).data?.factors).toEqual([])
  })

  it("lets an administrator rename and delete a user's factor", async () => {
    const { supabase, userId } = await signedIn()
    const id = (await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "before" })).data?.id ?? ""
    const renamed = await fetch(`${server.baseUrl}/admin/users/${userId}/factors/${id}`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${server.serviceKey}`,
        apikey: server.serviceKey,
        "content-type": "application/json"
      },
      body: JSON.stringify({ friendly_name: "after" })
    })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toMatchObject({ id, friendly_name: "after", factor_type: "totp" })
    const deleted = await admin().mfa.deleteFactor({ userId, id })
    expect(deleted.error).toBeNull()
    // auth-js hands back its request helper's result here, the deleted factor nested in it.
    expect(deleted.data).toMatchObject({ data: { id, friendly_name: "after" } })
    expect((await supabase.auth.mfa.listFactors()).data?.all).toEqual([])
    const again = await admin().mfa.deleteFactor({ userId, id })
    expect(apiError(again.error)).toEqual({
      status: 404,
      code: "mfa_factor_not_found",
      message: "Factor not found"
    })
  })

  it("answers bad input with Supabase Auth's codes, never a 500", async () => {
    const { supabase, token } = await signedIn()
    const other = await signedIn()
    const theirs =
      (await other.supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "theirs" })).data?.id ?? ""

    const post = async (body: unknown) => {
      const answer = await fetch(`${server.baseUrl}/factors`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          apikey: server.anonKey,
          "content-type": "application/json"
        },
        body: JSON.stringify(body)
      })
      const json = (await answer.json()) as { error_code?: string; msg?: string }
      return [answer.status, json.error_code, json.msg]
    }
    expect(await post({ factor_type: "sms" })).toEqual([
      400,
      "validation_failed",
      "factor_type needs to be totp, phone, or webauthn"
    ])
    // Phone factors are off by default (MFA_PHONE_ENROLL_ENABLED).
    const phone = await supabase.auth.mfa.enroll({ factorType: "phone", phone: "+15555550100" })
    expect(apiError(phone.error)).toEqual({
      status: 422,
      code: "mfa_phone_enroll_not_enabled",
      message: "MFA enroll is disabled for Phone"
    })

    const unenrolTheirs = await supabase.auth.mfa.unenroll({ factorId: theirs })
    expect(apiError(unenrolTheirs.error)).toEqual({
      status: 404,
      code: "mfa_factor_not_found",
      message: "Factor not found"
    })
    const notUuid = await supabase.auth.mfa.unenroll({ factorId: "not-a-uuid" })
    expect(apiError(notUuid.error)).toMatchObject({ status: 404, code: "validation_failed" })

    expect((await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "mine" })).error).toBeNull()
    const duplicate = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "mine" })
    expect(apiError(duplicate.error)).toEqual({
      status: 422,
      code: "mfa_factor_name_conflict",
      message: 'A factor with the friendly name "mine" for this user already exists'
    })

    const anonymous = server.client()
    expect((await anonymous.auth.signInAnonymously()).error).toBeNull()
    const refused = await anonymous.auth.mfa.enroll({ factorType: "totp" })
    expect(apiError(refused.error)).toEqual({
      status: 403,
      code: "no_authorization",
      message: "Anonymous user not allowed to perform these actions"
    })
  })

  it("verifies an enrolled TOTP factor, then unenrols it only from an aal2 session", async () => {
    const { supabase, email } = await signedIn()
    const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
    const data = enrolled.data
    if (data === null || data.type !== "totp") throw new Error("expected a TOTP enrolment")
    const code = codeOfStep(data.totp.secret, Math.floor(Date.now() / 1000 / 30))
    const verified = await supabase.auth.mfa.challengeAndVerify({ factorId: data.id, code })
    expect(verified.error).toBeNull()
    expect((await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: "aal2",
      nextLevel: "aal2"
    })
    expect((await supabase.auth.mfa.listFactors()).data?.totp.map((factor) => factor.id)).toEqual([data.id])

    // A new sign-in is aal1: it may not remove the verified factor.
    const other = server.client()
    expect((await other.auth.signInWithPassword({ email, password })).error).toBeNull()
    expect(apiError((await other.auth.mfa.unenroll({ factorId: data.id })).error)).toEqual({
      status: 422,
      code: "insufficient_aal",
      message: "AAL2 required to unenroll verified factor"
    })
    expect((await supabase.auth.mfa.unenroll({ factorId: data.id })).error).toBeNull()
    expect((await supabase.auth.mfa.listFactors()).data?.all).toEqual([])

    // The session the factor raised went back to aal1: its next token says so, without `totp`.
    expect((await supabase.auth.refreshSession()).error).toBeNull()
    const level = (await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data
    expect(level).toMatchObject({ currentLevel: "aal1", nextLevel: "aal1" })
    expect(
      level?.currentAuthenticationMethods.map((entry) => (typeof entry === "string" ? entry : entry.method))
    ).toEqual(["password"])
  })
})
