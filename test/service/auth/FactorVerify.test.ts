import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { decodeJwt } from "jose"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import type { AuthConfig } from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthLayers from "../../../bootstrap/auth/AuthLayers.js"
import { defaultLimits, Factor, FactorId } from "../../../domain/auth/Factor.js"
import { UserId } from "../../../domain/Ids.js"
import { codeOfStep, newSecret } from "../../application/auth/support/Factors.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { jsonObject } from "../../support/JsonBody.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

// The factor is stored beside the instance, as an enrolment stores it, until POST /factors is
// routed: that needs a PostgreSQL server (the embedded one serves one process). CI has one.
const hasServer = inject("postgresUrl") !== null

let scope: Scope.CloseableScope
let baseUrl = ""
let anonKey = ""
let config: AuthConfig

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(
    Scope.extend(
      AuthServerHarness.start({ env: { AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000000" } }),
      scope
    )
  )
  baseUrl = running.baseUrl
  config = running.config
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 60_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** An unverified TOTP factor of the user, stored in the instance's database. */
const enrolTotp = async (userId: string) => {
  const secret = newSecret()
  const now = new Date()
  const factor = new Factor({
    id: FactorId.make(crypto.randomUUID()),
    userId: UserId.make(userId),
    friendlyName: "phone app",
    factorType: "totp",
    status: "unverified",
    phone: Option.none(),
    lastChallengedAt: Option.none(),
    createdAt: now,
    updatedAt: now
  })
  await Effect.runPromise(
    Effect.scoped(
      Effect.provide(
        Effect.flatMap(FactorStore, (store) => store.enrol(factor, Option.some(secret), defaultLimits)),
        AuthLayers.core(config)
      )
    )
  )
  return { factorId: factor.id, secret }
}

const currentCode = (secret: string) => codeOfStep(secret, Math.floor(Date.now() / 1000 / 30))

/** A user signed up through supabase-js (autoconfirm signs them in) holding an unverified TOTP factor. */
const signedUpWithTotp = async () => {
  const supabase = SupabaseClientSupport.client(baseUrl, anonKey)
  const signedUp = await supabase.auth.signUp({
    email: `${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple"
  })
  const session = signedUp.data.session
  if (session === null) throw new Error("autoconfirm signs in")
  return { supabase, session, ...(await enrolTotp(session.user.id)) }
}

/**
 * 50 verifies of one challenge with one code at once, by the session's access token: exactly
 * one raises the session (its answer is returned, in a list of one); the others hear that the
 * challenge was used.
 */
const verifiesAtOnce = async (
  accessToken: string,
  factorId: string,
  challengeId: string | undefined,
  code: string
) => {
  const answers = await Promise.all(
    Array.from({ length: 50 }, () =>
      fetch(`${baseUrl}/factors/${factorId}/verify`, {
        method: "POST",
        headers: {
          apikey: anonKey,
          authorization: `Bearer ${accessToken}`,
          "content-type": "application/json"
        },
        body: JSON.stringify({ challenge_id: challengeId, code })
      }).then(async (response) => ({ status: response.status, body: await jsonObject(response) }))
    )
  )
  const raised = answers.filter((answer) => answer.status === 200)
  expect(raised).toHaveLength(1)
  expect(
    new Set(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.error_code))
  ).toEqual(new Set(["mfa_ip_address_mismatch"]))
  return raised
}

describe.runIf(hasServer)("factor challenge and verify through supabase-js", () => {
  it("challengeAndVerify raises the session to aal2; refreshes keep it; the old token is a reuse", async () => {
    const { supabase, session: before, factorId, secret } = await signedUpWithTotp()

    const code = currentCode(secret)
    const verified = await supabase.auth.mfa.challengeAndVerify({ factorId, code })
    expect(verified.error).toBeNull()
    const claims = decodeJwt(verified.data?.access_token ?? "")
    expect(claims.aal).toBe("aal2")
    expect(claims.session_id).toBe(decodeJwt(before.access_token).session_id)
    expect((claims.amr as Array<{ method: string }>).map((entry) => entry.method)).toEqual([
      "totp",
      "password"
    ])
    const level = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
    expect(level.data?.currentLevel).toBe("aal2")

    // The same code again, with a fresh challenge: never accepted twice.
    const replay = await supabase.auth.mfa.challengeAndVerify({ factorId, code })
    expect([replay.error?.code, replay.error?.message]).toEqual([
      "mfa_verification_failed",
      "Invalid TOTP code entered"
    ])

    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(decodeJwt(refreshed.data.session?.access_token ?? "").aal).toBe("aal2")

    const reused = await fetch(`${baseUrl}/token?grant_type=refresh_token`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: before.refresh_token })
    })
    expect([reused.status, (await jsonObject(reused)).error_code]).toEqual([
      400,
      "refresh_token_already_used"
    ])
  })

  it("a verified factor steps up a later sign-in: 50 verifies at once raise it once, the aal2 session stays", async () => {
    const { supabase, session: first, factorId, secret } = await signedUpWithTotp()
    const step = Math.floor(Date.now() / 1000 / 30)
    expect(
      (await supabase.auth.mfa.challengeAndVerify({ factorId, code: codeOfStep(secret, step) })).error
    ).toBeNull()
    // A sign-in on another device: aal1, with the factor verified.
    const device = SupabaseClientSupport.client(baseUrl, anonKey)
    const signedIn = await device.auth.signInWithPassword({
      email: first.user.email ?? "",
      password: "correct horse battery staple"
    })
    const session = signedIn.data.session
    if (session === null) throw new Error("the password signs in")
    expect(decodeJwt(session.access_token).aal).toBe("aal1")
    const challenge = await device.auth.mfa.challenge({ factorId })
    // The next step's code: inside the window, later than the one the first verify used.
    const code = codeOfStep(secret, step + 1)
    const raised = await verifiesAtOnce(session.access_token, factorId, challenge.data?.id, code)
    const claims = decodeJwt(String(raised[0]?.body.access_token))
    expect([claims.aal, claims.session_id]).toEqual(["aal2", decodeJwt(session.access_token).session_id])
    expect((claims.amr as Array<{ method: string }>).map((entry) => entry.method)).toEqual([
      "totp",
      "password"
    ])
    // Both sessions refresh at aal2: the step up ended no aal2 session.
    for (const token of [
      raised[0]?.body.refresh_token,
      (await supabase.auth.getSession()).data.session?.refresh_token
    ]) {
      const refreshed = await fetch(`${baseUrl}/token?grant_type=refresh_token`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: token })
      })
      expect([refreshed.status, decodeJwt(String((await jsonObject(refreshed)).access_token)).aal]).toEqual([
        200,
        "aal2"
      ])
    }
  })

  it("50 verifies of one challenge at once: exactly one session is raised", async () => {
    const { supabase, session, factorId, secret } = await signedUpWithTotp()
    const challenge = await supabase.auth.mfa.challenge({ factorId })
    const code = currentCode(secret)
    const raised = await verifiesAtOnce(session.access_token, factorId, challenge.data?.id, code)
    // The one refresh token handed out is the live one.
    const refreshed = await fetch(`${baseUrl}/token?grant_type=refresh_token`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: raised[0]?.body.refresh_token })
    })
    expect(refreshed.status).toBe(200)
  })

  it("one code on two challenges at once: one passes, and the other challenge is given back", async () => {
    const { supabase, session, factorId, secret } = await signedUpWithTotp()
    const first = await supabase.auth.mfa.challenge({ factorId })
    const second = await supabase.auth.mfa.challenge({ factorId })
    const step = Math.floor(Date.now() / 1000 / 30)
    const verify = (challengeId: string | undefined, code: string) =>
      fetch(`${baseUrl}/factors/${factorId}/verify`, {
        method: "POST",
        headers: {
          apikey: anonKey,
          authorization: `Bearer ${session.access_token}`,
          "content-type": "application/json"
        },
        body: JSON.stringify({ challenge_id: challengeId, code })
      }).then(async (response) => [response.status, (await jsonObject(response)).error_code])
    const code = codeOfStep(secret, step)
    const answers = await Promise.all([verify(first.data?.id, code), verify(second.data?.id, code)])
    expect(answers.map(([status]) => status).sort()).toEqual([200, 422])
    expect(answers.find(([status]) => status === 422)?.[1]).toBe("mfa_verification_failed")
    // The loser's challenge is usable still, whether it failed before spending it or its
    // transaction rolled the spending back: the next step's code (in the window) passes on it.
    const left = answers[0]?.[0] === 200 ? second.data?.id : first.data?.id
    expect(await verify(left, codeOfStep(secret, step + 1))).toEqual([200, undefined])
  })

  it("refusals: an unknown challenge, another user's factor, a wrong code", async () => {
    const owner = SupabaseClientSupport.client(baseUrl, anonKey)
    const ownerUp = await owner.auth.signUp({
      email: `${crypto.randomUUID()}@example.com`,
      password: "correct horse battery staple"
    })
    const { factorId } = await enrolTotp(ownerUp.data.user?.id ?? "")
    const wrong = await owner.auth.mfa.challengeAndVerify({ factorId, code: "000000" })
    expect(wrong.error?.code).toBe("mfa_verification_failed")
    const unknown = await owner.auth.mfa.verify({
      factorId,
      challengeId: crypto.randomUUID(),
      code: "123456"
    })
    expect([unknown.error?.status, unknown.error?.code]).toEqual([422, "mfa_factor_not_found"])

    const stranger = SupabaseClientSupport.client(baseUrl, anonKey)
    await stranger.auth.signUp({
      email: `${crypto.randomUUID()}@example.com`,
      password: "correct horse battery staple"
    })
    const foreign = await stranger.auth.mfa.challenge({ factorId })
    expect([foreign.error?.status, foreign.error?.code]).toEqual([404, "mfa_factor_not_found"])
  })
})

describe.runIf(hasServer)("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", () => {
  let limited: Scope.CloseableScope
  let limitedUrl = ""

  beforeAll(async () => {
    limited = Effect.runSync(Scope.make())
    const running = await Effect.runPromise(
      Scope.extend(
        AuthServerHarness.start({ env: { AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1" } }),
        limited
      )
    )
    limitedUrl = running.baseUrl
  }, 60_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(limited, Exit.void))
  })

  it("counts challenges and verifies apart, per address, once the caller's factor is found", async () => {
    const post = (path: string, token?: string) =>
      fetch(`${limitedUrl}${path}`, {
        method: "POST",
        headers: {
          apikey: anonKey,
          "content-type": "application/json",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
        },
        body: JSON.stringify({ challenge_id: crypto.randomUUID(), code: "123456" })
      }).then(async (response) => [response.status, (await jsonObject(response)).error_code])
    const supabase = SupabaseClientSupport.client(limitedUrl, anonKey)
    const signedUp = await supabase.auth.signUp({
      email: `${crypto.randomUUID()}@example.com`,
      password: "correct horse battery staple"
    })
    const token = signedUp.data.session?.access_token ?? ""
    const enrolled = await supabase.auth.mfa.enroll({ factorType: "totp" })
    const factorId = enrolled.data?.id ?? ""
    const unknown = crypto.randomUUID()
    // Without a caller nothing is counted; nor, as Supabase Auth loads the factor before its
    // limiter, for a factor that is not the caller's.
    expect(await post(`/factors/${factorId}/challenge`)).toEqual([401, "no_authorization"])
    for (const _ of [1, 2]) {
      expect(await post(`/factors/${unknown}/challenge`, token)).toEqual([404, "mfa_factor_not_found"])
      expect(await post(`/factors/${unknown}/verify`, token)).toEqual([404, "mfa_factor_not_found"])
      expect(await post("/factors/not-a-uuid/verify", token)).toEqual([404, "validation_failed"])
    }
    expect((await post(`/factors/${factorId}/challenge`, token))[0]).toBe(200)
    expect(await post(`/factors/${factorId}/challenge`, token)).toEqual([429, "over_request_rate_limit"])
    expect(await post(`/factors/${factorId}/verify`, token)).toEqual([422, "mfa_factor_not_found"])
    expect(await post(`/factors/${factorId}/verify`, token)).toEqual([429, "over_request_rate_limit"])
  })
})
