import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import * as AuthServerPerFile from "../../support/auth/AuthServerPerFile.js"

/**
 * The user's factors on every user object Supabase Auth loads them for: the token answers
 * (factor verify, password sign-in, refresh) and the admin user (read, update, list), as
 * supabase-js receives them from the built service.
 */

const server = AuthServerPerFile.start()

const admin = () => server.admin()
const password = "correct horse battery staple"

/** A user signed up through supabase-js with a TOTP factor verified; its id and the factor's. */
const withVerifiedTotp = async () => {
  const supabase = server.client()
  const email = `user-${randomUUID()}@example.com`
  const signUp = await supabase.auth.signUp({ email, password })
  expect(signUp.error).toBeNull()
  expect(signUp.data.user?.factors).toBeUndefined()
  const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
  const data = enrolled.data
  if (data === null || data.type !== "totp") throw new Error("expected a TOTP enrolment")
  const code = codeOfStep(data.totp.secret, Math.floor(Date.now() / 1000 / 30))
  const verified = await supabase.auth.mfa.challengeAndVerify({ factorId: data.id, code })
  expect(verified.error).toBeNull()
  return { email, userId: signUp.data.user?.id ?? "", factorId: data.id, verified: verified.data }
}

/** The factor as Supabase Auth's user object lists it once verified. */
const verifiedFactor = (id: string) => ({
  id,
  created_at: expect.any(String),
  updated_at: expect.any(String),
  status: "verified",
  friendly_name: "app",
  factor_type: "totp",
  phone: "",
  last_challenged_at: expect.any(String)
})

describe("factors on the user of the token answers and the admin API", () => {
  it("lists a verified TOTP factor after the verify, a password sign-in and a refresh", async () => {
    const { email, factorId, verified } = await withVerifiedTotp()
    // The verify's answer was read after the factor was verified.
    expect(verified?.user.factors).toEqual([verifiedFactor(factorId)])

    const supabase = server.client()
    const signedIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.factors).toEqual([verifiedFactor(factorId)])
    expect(signedIn.data.session?.user.factors).toEqual([verifiedFactor(factorId)])
    // supabase-js keeps the answer's user with the session: the next level is read from it.
    expect((await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: "aal1",
      nextLevel: "aal2"
    })

    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(refreshed.data.user?.factors).toEqual([verifiedFactor(factorId)])
    expect(refreshed.data.session?.user.factors).toEqual([verifiedFactor(factorId)])
    expect((await supabase.auth.getSession()).data.session?.user.factors).toEqual([verifiedFactor(factorId)])
  })

  it("shows the factors on the admin user: read, update and list; none: left out", async () => {
    const { factorId, userId } = await withVerifiedTotp()
    const read = await admin().getUserById(userId)
    expect(read.error).toBeNull()
    expect(read.data.user?.factors).toEqual([verifiedFactor(factorId)])

    const updated = await admin().updateUserById(userId, { user_metadata: { plan: "pro" } })
    expect(updated.error).toBeNull()
    expect(updated.data.user?.user_metadata).toMatchObject({ plan: "pro" })
    expect(updated.data.user?.factors).toEqual([verifiedFactor(factorId)])

    const plain = server.client()
    const other = await plain.auth.signUp({ email: `user-${randomUUID()}@example.com`, password })
    const otherId = other.data.user?.id ?? ""
    // Newest first: both of them are on the first page.
    const listed = await admin().listUsers({ page: 1, perPage: 1000 })
    expect(listed.error).toBeNull()
    const users = listed.data.users
    expect(users.find((user) => user.id === userId)?.factors).toEqual([verifiedFactor(factorId)])
    const without = users.find((user) => user.id === otherId)
    expect(without?.id).toBe(otherId)
    expect(without !== undefined && "factors" in without).toBe(false)
    expect((await admin().getUserById(otherId)).data.user?.factors).toBeUndefined()
  })
})
