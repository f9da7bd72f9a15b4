import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { codeOfStep } from "../../application/auth/support/Factors.js"
import * as AuthServerPerFile from "../../support/auth/AuthServerPerFile.js"

/**
 * Supabase Auth's session limits as a Supabase configuration sets them (its `GOTRUE_` names, a
 * duration as the Supabase CLI writes one), seen through supabase-js against the built service:
 * a user with a verified factor who signs in with a password alone gets access tokens that end
 * with `SESSIONS_ALLOW_LOW_AAL`; verifying the factor lifts the limit; a second sign-in ends the
 * first session's refreshes (`SESSIONS_SINGLE_PER_USER`). When a session is past a limit of
 * time is the use case's and the store's to judge (RefreshSession.test.ts, the SessionStore
 * contract), under a test clock.
 */

const server = AuthServerPerFile.start({
  env: {
    GOTRUE_SESSIONS_ALLOW_LOW_AAL: "5m0s",
    GOTRUE_SESSIONS_TIMEBOX: "24h0m0s",
    GOTRUE_SESSIONS_SINGLE_PER_USER: "true"
  }
})

const password = "correct horse battery staple"

/** The `exp` and `iat` claims of an access token, apart. */
const lifetimeOf = (token: string): number => {
  const payload: unknown = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"))
  if (typeof payload !== "object" || payload === null || !("exp" in payload) || !("iat" in payload)) {
    throw new Error("expected exp and iat claims")
  }
  return Number(payload.exp) - Number(payload.iat)
}

describe("session limits read from a Supabase configuration", () => {
  it("an aal1 session of a user with a verified factor lives SESSIONS_ALLOW_LOW_AAL; a verify lifts it", async () => {
    const enrolling = server.client()
    const email = `user-${randomUUID()}@example.com`
    expect((await enrolling.auth.signUp({ email, password })).error).toBeNull()
    // No factor yet: the user cannot do better than aal1, and tokens live JWT_EXP.
    const before = (await enrolling.auth.getSession()).data.session
    expect(before?.expires_in).toBe(3600)
    const enrolled = await enrolling.auth.mfa.enroll({ factorType: "totp", friendlyName: "app" })
    const factor = enrolled.data
    if (factor === null || factor.type !== "totp") throw new Error("expected a TOTP enrolment")
    const code = (offset: number) =>
      codeOfStep(factor.totp.secret, Math.floor(Date.now() / 1000 / 30) + offset)
    expect(
      (await enrolling.auth.mfa.challengeAndVerify({ factorId: factor.id, code: code(0) })).error
    ).toBeNull()

    const supabase = server.client()
    const signedIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signedIn.error).toBeNull()
    const low = signedIn.data.session
    expect(low?.expires_in).toBe(300)
    expect(lifetimeOf(low?.access_token ?? "")).toBe(300)
    // A refresh inside the allowance is answered, with no more than what is left of it.
    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(refreshed.data.session?.expires_in).toBeLessThanOrEqual(300)

    // The next step's code: the enrolment's verify used this one, and a code is accepted once.
    const raised = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code: code(1) })
    expect(raised.error).toBeNull()
    expect(raised.data?.expires_in).toBe(3600)
    expect(lifetimeOf(raised.data?.access_token ?? "")).toBe(3600)
    expect((await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal2")
  })

  it("a newer sign-in ends the older session's refreshes, as supabase-js hears it", async () => {
    const email = `user-${randomUUID()}@example.com`
    const older = server.client()
    expect((await older.auth.signUp({ email, password })).error).toBeNull()
    expect((await older.auth.refreshSession()).error).toBeNull()
    const newer = server.client()
    expect((await newer.auth.signInWithPassword({ email, password })).error).toBeNull()
    const refused = await older.auth.refreshSession()
    expect(refused.error?.status).toBe(400)
    expect(refused.error?.code).toBe("session_expired")
    expect(refused.error?.message).toBe("Invalid Refresh Token: Session Expired (Revoked by Newer Login)")
    expect((await newer.auth.refreshSession()).error).toBeNull()
  })
})
