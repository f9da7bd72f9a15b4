import { hash as bcrypt } from "@node-rs/bcrypt"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as FirebaseHashes from "../../support/auth/FirebaseHashes.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { anHour, awayFromWindowEdge } from "../../support/WindowEdge.js"

let scope: Scope.CloseableScope
/** Email confirmation required (no autoconfirm). */
let confirming = ""
/** Sign-ups off, email sign-in off. */
let closed = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const [first, second] = await Effect.runPromise(
    Scope.extend(
      Effect.all(
        [
          AuthServerHarness.start({
            env: {
              AUTHSVC_MAILER_AUTOCONFIRM: "false",
              AUTHSVC_SMS_AUTOCONFIRM: "false",
              AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "2"
            }
          }),
          AuthServerHarness.start({
            env: { AUTHSVC_DISABLE_SIGNUP: "true", AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED: "false" }
          })
        ],
        { concurrency: "unbounded" }
      ),
      scope
    )
  )
  confirming = first.baseUrl
  closed = second.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const password = "correct horse battery staple"
const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

describe("sign-up policies", () => {
  it("without autoconfirm: no session, no password sign-in until confirmed; a taken address answers a faux user", async () => {
    const supabase = SupabaseClientSupport.client(confirming, anonKey)
    const email = freshEmail()
    const signUp = await supabase.auth.signUp({ email, password })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session).toBeNull()
    expect(signUp.data.user?.email_confirmed_at).toBeUndefined()
    const early = await supabase.auth.signInWithPassword({ email, password })
    expect(SupabaseClientSupport.apiError(early.error)).toMatchObject({
      status: 400,
      code: "email_not_confirmed"
    })

    // Confirmed by an admin: sign-in works; a second sign-up with the address says nothing of it.
    const admin = SupabaseClientSupport.client(confirming, serviceKey).auth.admin
    expect((await admin.updateUserById(signUp.data.user?.id ?? "", { email_confirm: true })).error).toBeNull()
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    const again = await SupabaseClientSupport.client(confirming, anonKey).auth.signUp({
      email,
      password: "another password"
    })
    expect(again.error).toBeNull()
    expect(again.data.user?.email).toBe(email)
    expect(again.data.user?.id).not.toBe(signUp.data.user?.id)
    expect(again.data.user?.identities).toEqual([])
  })

  it("anonymous sign-ins are limited per client address (RATE_LIMIT_ANONYMOUS_USERS)", async () => {
    await awayFromWindowEdge(anHour)
    const attempts = []
    for (let i = 0; i < 3; i++)
      attempts.push(await SupabaseClientSupport.client(confirming, anonKey).auth.signInAnonymously())
    expect(attempts.slice(0, 2).map((attempt) => attempt.error)).toEqual([null, null])
    expect(SupabaseClientSupport.apiError(attempts[2]?.error)).toMatchObject({
      status: 429,
      code: "over_request_rate_limit"
    })
  })

  it("signups off: sign-ups and anonymous sign-ins refused; admins still create users", async () => {
    const supabase = SupabaseClientSupport.client(closed, anonKey)
    const refused = await supabase.auth.signUp({ email: freshEmail(), password })
    expect(SupabaseClientSupport.apiError(refused.error)).toEqual({
      status: 422,
      code: "signup_disabled",
      message: "Signups not allowed for this instance"
    })
    const anonymous = await supabase.auth.signInAnonymously()
    expect(SupabaseClientSupport.apiError(anonymous.error)).toMatchObject({
      status: 422,
      code: "anonymous_provider_disabled"
    })
    const admin = SupabaseClientSupport.client(closed, serviceKey).auth.admin
    const email = freshEmail()
    expect((await admin.createUser({ email, password, email_confirm: true })).error).toBeNull()
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
  })

  it("a user imported with Supabase's bcrypt hash signs in with their password, again and again", async () => {
    const admin = SupabaseClientSupport.client(confirming, serviceKey).auth.admin
    const email = freshEmail()
    const imported = await admin.createUser({
      email,
      password_hash: await bcrypt(password, { cost: 10, version: "2a" }),
      email_confirm: true
    })
    expect(imported.error).toBeNull()
    const supabase = SupabaseClientSupport.client(confirming, anonKey)
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    // The hash was replaced by an argon2id one at that sign-in; the password still works.
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    const wrong = await supabase.auth.signInWithPassword({ email, password: "not it" })
    expect(SupabaseClientSupport.apiError(wrong.error)).toMatchObject({ code: "invalid_credentials" })
    const garbled = await admin.createUser({
      email: freshEmail(),
      password_hash: "$2a$10$garbled",
      email_confirm: true
    })
    expect(SupabaseClientSupport.apiError(garbled.error)).toMatchObject({
      status: 400,
      code: "validation_failed"
    })
  })

  it("a user imported with Firebase's scrypt hash signs in with their password, again and again", async () => {
    const admin = SupabaseClientSupport.client(confirming, serviceKey).auth.admin
    const email = freshEmail()
    const imported = await admin.createUser({
      email,
      password_hash: FirebaseHashes.vector,
      email_confirm: true
    })
    expect(imported.error).toBeNull()
    const supabase = SupabaseClientSupport.client(confirming, anonKey)
    const password = FirebaseHashes.password
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    // Replaced by an argon2id hash at that sign-in, as bcrypt's are.
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    const wrong = await supabase.auth.signInWithPassword({ email, password: `${password}!` })
    expect(SupabaseClientSupport.apiError(wrong.error)).toMatchObject({ code: "invalid_credentials" })
    // A hash no sign-in could afford (2^24 scrypt blocks of 1 KiB: 16 GiB) is refused.
    const costly = await admin.createUser({
      email: freshEmail(),
      password_hash: FirebaseHashes.hash(`n=24,r=8,p=1,ss=Bw==,sk=${FirebaseHashes.signerKey}`),
      email_confirm: true
    })
    expect(SupabaseClientSupport.apiError(costly.error)).toMatchObject({
      status: 400,
      code: "validation_failed"
    })
  })
})
