import type { SupabaseClient } from "@supabase/supabase-js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as AuthServerHarness from "../../support/auth/AuthServerHarness.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"

// Two instances need a PostgreSQL server they both reach; CI always has one.
const hasServer = inject("postgresUrl") !== null

let scope: Scope.CloseableScope
let a = ""
let b = ""
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  if (!hasServer) return
  scope = Effect.runSync(Scope.make())
  const [first, second] = await Effect.runPromise(Scope.extend(AuthServerHarness.startPair(), scope))
  a = first.baseUrl
  b = second.baseUrl
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
}, 120_000)

afterAll(async () => {
  if (hasServer) await Effect.runPromise(Scope.close(scope, Exit.void))
})

const { apiError } = SupabaseClientSupport
const password = "the first password"

/** A user's sessions, each a supabase-js client signed in at one of the instances. */
const sessionsAt = async (...bases: ReadonlyArray<string>) => {
  const email = `user-${crypto.randomUUID()}@example.com`
  await SupabaseClientSupport.client(a, anonKey).auth.signUp({ email, password })
  const clients: Array<SupabaseClient> = []
  for (const base of bases) {
    const client = SupabaseClientSupport.client(base, anonKey)
    expect((await client.auth.signInWithPassword({ email, password })).error).toBeNull()
    clients.push(client)
  }
  return { email, clients }
}

/** What one session's tokens get at an instance: its user (access token), and a refresh. */
const standing = async (client: SupabaseClient, base: string) => {
  const session = (await client.auth.getSession()).data.session
  const elsewhere = SupabaseClientSupport.client(base, anonKey)
  const user = await elsewhere.auth.getUser(session?.access_token)
  const refreshed = await elsewhere.auth.refreshSession({ refresh_token: session?.refresh_token ?? "" })
  return {
    user: user.error === null ? "ok" : user.error.name,
    refresh: refreshed.error === null ? "ok" : apiError(refreshed.error).code
  }
}

const ended = { user: "AuthSessionMissingError", refresh: "refresh_token_not_found" }

describe.runIf(hasServer)("a password change ends sessions at every instance", () => {
  it("updateUser({ password }) at one instance ends the user's other sessions at the other", async () => {
    const { email, clients } = await sessionsAt(a, b, a)
    const [atA, changing, alsoAtA] = clients
    if (atA === undefined || changing === undefined || alsoAtA === undefined)
      throw new Error("three sessions")
    expect(await standing(atA, a)).toEqual({ user: "ok", refresh: "ok" })

    expect((await changing.auth.updateUser({ password: "the second password" })).error).toBeNull()

    expect(await standing(alsoAtA, a)).toEqual(ended)
    expect(await standing(atA, b)).toEqual(ended)
    // The session that made the change goes on, at either instance.
    expect((await changing.auth.getUser()).error).toBeNull()
    expect(await standing(changing, a)).toEqual({ user: "ok", refresh: "ok" })
    const old = await SupabaseClientSupport.client(a, anonKey).auth.signInWithPassword({ email, password })
    expect(apiError(old.error).code).toBe("invalid_credentials")
  })

  it("admin.updateUserById({ password }) at one instance ends every session of the user at the other", async () => {
    const { email, clients } = await sessionsAt(a, b)
    const user = (await clients[0]?.auth.getUser())?.data.user
    const admin = SupabaseClientSupport.client(b, serviceKey).auth.admin
    expect(
      (await admin.updateUserById(user?.id ?? "", { password: "set by an administrator" })).error
    ).toBeNull()
    for (const client of clients) expect(await standing(client, a)).toEqual(ended)
    const fresh = SupabaseClientSupport.client(a, anonKey)
    expect(
      (await fresh.auth.signInWithPassword({ email, password: "set by an administrator" })).error
    ).toBeNull()
  })
})

describe("SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD through supabase-js", () => {
  let mailing: MailingAuth.MailingAuth

  beforeAll(async () => {
    mailing = await MailingAuth.start({ AUTHSVC_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: "true" })
    anonKey = await SupabaseClientSupport.apiKey("anon")
    serviceKey = await SupabaseClientSupport.apiKey("service_role")
  }, 60_000)

  afterAll(async () => {
    await mailing.close()
  })

  it("updateUser({ password }) needs current_password, but not after resetPasswordForEmail", async () => {
    const email = `user-${crypto.randomUUID()}@example.com`
    const admin = SupabaseClientSupport.client(mailing.baseUrl, serviceKey).auth.admin
    expect((await admin.createUser({ email, password, email_confirm: true })).error).toBeNull()
    const supabase = SupabaseClientSupport.client(mailing.baseUrl, anonKey)
    expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()

    const next = "the second password"
    expect(apiError((await supabase.auth.updateUser({ password: next })).error)).toEqual({
      status: 400,
      code: "current_password_required",
      message: "Current password required when setting new password."
    })
    const wrong = await supabase.auth.updateUser({ password: next, current_password: "not it" })
    expect(apiError(wrong.error)).toEqual({
      status: 400,
      code: "current_password_invalid",
      message: "Current password required when setting new password."
    })
    expect((await supabase.auth.updateUser({ password: next, current_password: password })).error).toBeNull()

    // Whoever forgot the password proves themselves by the recovery mail instead.
    const forgetful = SupabaseClientSupport.client(mailing.baseUrl, anonKey)
    expect((await forgetful.auth.resetPasswordForEmail(email)).error).toBeNull()
    const { code } = Mailbox.linkAndCode((await Mailbox.mailTo(mailing.catcher, email)).text)
    expect((await forgetful.auth.verifyOtp({ email, token: code, type: "recovery" })).error).toBeNull()
    expect((await forgetful.auth.updateUser({ password: "the third password" })).error).toBeNull()
    const signedIn = await SupabaseClientSupport.client(mailing.baseUrl, anonKey).auth.signInWithPassword({
      email,
      password: "the third password"
    })
    expect(signedIn.error).toBeNull()
  })
})
