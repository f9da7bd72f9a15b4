import { randomUUID } from "node:crypto"
import type { SupabaseClient } from "@supabase/supabase-js"
import { describe, expect, it } from "vitest"
import * as AuthServerPerFile from "../../support/auth/AuthServerPerFile.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { jsonObject } from "../../support/JsonBody.js"

const { apiError } = SupabaseClientSupport

const server = AuthServerPerFile.start()

const app = (): SupabaseClient => server.client()
const admin = () => server.admin()
const freshEmail = () => `user-${randomUUID()}@example.com`
const password = "correct horse battery staple"

describe("the auth service through supabase-js", () => {
  it("reports its settings as Supabase Auth does, with the spec's autoconfirm", async () => {
    const settings = await jsonObject(await fetch(`${server.baseUrl}/auth/v1/settings`))
    expect(settings).toMatchObject({
      disable_signup: false,
      autoconfirm: true,
      mailer_autoconfirm: true,
      phone_autoconfirm: true,
      sms_provider: "",
      saml_enabled: false,
      external: {
        email: true,
        phone: true,
        anonymous_users: true,
        github: false,
        workos: false,
        linkedin_oidc: false,
        slack_oidc: false,
        kakao: false,
        x: false
      }
    })
    const external = settings.external
    // The twenty-four providers, email, phone and anonymous users.
    expect(typeof external === "object" && external !== null ? Object.keys(external).length : 0).toBe(27)
  })

  it("signs up (confirmed at once), reads the user, signs out, signs in and refreshes", async () => {
    const supabase = app()
    const email = freshEmail()
    const signUp = await supabase.auth.signUp({ email, password, options: { data: { full_name: "Ada" } } })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session?.access_token).toEqual(expect.any(String))
    expect(signUp.data.user?.email).toBe(email)
    // As Supabase Auth fills it at a sign-up: the identity's claims, then the data; confirmed.
    const metadata = {
      sub: signUp.data.user?.id,
      email,
      email_verified: true,
      phone_verified: false,
      full_name: "Ada"
    }
    expect(signUp.data.user?.user_metadata).toEqual(metadata)
    expect(signUp.data.user?.identities?.map((identity) => identity.provider)).toEqual(["email"])
    expect((await supabase.auth.getClaims()).data?.claims.user_metadata).toEqual(metadata)

    const got = await supabase.auth.getUser()
    expect(got.error).toBeNull()
    expect(got.data.user?.id).toBe(signUp.data.user?.id)

    expect((await supabase.auth.signOut()).error).toBeNull()
    const signIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signIn.error).toBeNull()
    expect(signIn.data.user?.last_sign_in_at).toEqual(expect.any(String))
    const before = signIn.data.session?.refresh_token
    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(refreshed.data.session?.refresh_token).not.toBe(before)
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email)
  })

  it("answers wrong credentials, weak passwords, taken addresses and bad tokens as Supabase Auth", async () => {
    const supabase = app()
    const email = freshEmail()
    await supabase.auth.signUp({ email, password })

    const wrong = await app().auth.signInWithPassword({ email, password: "not the password" })
    expect(apiError(wrong.error)).toEqual({
      status: 400,
      code: "invalid_credentials",
      message: "Invalid login credentials"
    })
    const nobody = await app().auth.signInWithPassword({ email: freshEmail(), password })
    expect(apiError(nobody.error)).toMatchObject({ status: 400, code: "invalid_credentials" })

    const weak = await app().auth.signUp({ email: freshEmail(), password: "abc" })
    expect(apiError(weak.error)).toMatchObject({ status: 422, code: "weak_password" })

    const again = await app().auth.signUp({ email, password })
    expect(apiError(again.error)).toEqual({
      status: 400,
      code: "user_already_exists",
      message: "User already registered"
    })

    const malformed = await app().auth.getUser("not-a-jwt")
    expect(apiError(malformed.error)).toMatchObject({ status: 403, code: "bad_jwt" })
  })

  it("signs in anonymously, then makes the user permanent with an email and a password", async () => {
    const supabase = app()
    const anonymous = await supabase.auth.signInAnonymously({ options: { data: { theme: "dark" } } })
    expect(anonymous.error).toBeNull()
    expect(anonymous.data.user?.is_anonymous).toBe(true)
    expect(anonymous.data.session?.access_token).toEqual(expect.any(String))

    const email = freshEmail()
    const withEmail = await supabase.auth.updateUser({ email })
    expect(withEmail.error).toBeNull()
    expect(withEmail.data.user?.email).toBe(email)
    expect(withEmail.data.user?.is_anonymous).toBe(false)
    const withPassword = await supabase.auth.updateUser({ password })
    expect(withPassword.error).toBeNull()

    const signIn = await app().auth.signInWithPassword({ email, password })
    expect(signIn.error).toBeNull()
    expect(signIn.data.user?.id).toBe(anonymous.data.user?.id)
    expect(signIn.data.user?.user_metadata).toMatchObject({ theme: "dark" })
  })

  it("signs up and signs in with a phone number", async () => {
    const phone = `+1555${String(Math.floor(Date.now() % 10_000_000)).padStart(7, "0")}`
    const signUp = await app().auth.signUp({ phone, password })
    expect(signUp.error).toBeNull()
    // Stored and returned as Supabase Auth does: the digits, without the `+`.
    expect(signUp.data.user?.phone).toBe(phone.slice(1))
    const signIn = await app().auth.signInWithPassword({ phone, password })
    expect(signIn.error).toBeNull()
    expect(signIn.data.user?.id).toBe(signUp.data.user?.id)
    const claims = JSON.parse(
      Buffer.from(signIn.data.session?.access_token.split(".")[1] ?? "", "base64url").toString()
    )
    expect(claims.phone).toBe(phone.slice(1))
  })

  it("signs out one session, the others, or all of them", async () => {
    const email = freshEmail()
    await app().auth.signUp({ email, password })
    const sessions = [app(), app(), app()]
    for (const supabase of sessions)
      expect((await supabase.auth.signInWithPassword({ email, password })).error).toBeNull()
    const [first, second, third] = sessions
    if (first === undefined || second === undefined || third === undefined) throw new Error("three clients")

    expect((await first.auth.signOut({ scope: "local" })).error).toBeNull()
    // The second's refresh and its access token still work; the first's session is gone.
    expect((await second.auth.refreshSession()).error).toBeNull()

    const thirdToken = (await third.auth.getSession()).data.session?.refresh_token ?? ""
    expect((await second.auth.signOut({ scope: "others" })).error).toBeNull()
    expect((await second.auth.getUser()).error).toBeNull()
    const thirdRefresh = await third.auth.refreshSession({ refresh_token: thirdToken })
    expect(apiError(thirdRefresh.error)).toMatchObject({ status: 400, code: "refresh_token_not_found" })

    const session = (await second.auth.getSession()).data.session
    expect(session?.access_token).toEqual(expect.any(String))
    expect((await second.auth.signOut({ scope: "global" })).error).toBeNull()
    // The access token outlives its session only where nothing looks the session up.
    const raw = await fetch(`${server.baseUrl}/auth/v1/user`, {
      headers: { authorization: `Bearer ${session?.access_token}` }
    })
    expect(raw.status).toBe(403)
    expect(await raw.json()).toMatchObject({ error_code: "session_not_found" })
    // supabase-js reads that code as "the session is gone", as it does from Supabase Auth.
    const afterGlobal = await app().auth.getUser(session?.access_token)
    expect(afterGlobal.error?.name).toBe("AuthSessionMissingError")
  })

  it("administers users: create, list with paging, read, ban, unban, delete", async () => {
    const email = freshEmail()
    const created = await admin().createUser({
      email,
      password,
      email_confirm: true,
      user_metadata: { plan: "pro" }
    })
    expect(created.error).toBeNull()
    const id = created.data.user?.id ?? ""
    expect(created.data.user?.email_confirmed_at).toEqual(expect.any(String))

    const page = await admin().listUsers({ page: 1, perPage: 1 })
    expect(page.error).toBeNull()
    expect(page.data.users).toHaveLength(1)
    if (!("total" in page.data)) throw new Error("a page of users without its total")
    expect(page.data.total).toBeGreaterThanOrEqual(1)
    expect(page.data.nextPage).toBe(2)

    const read = await admin().getUserById(id)
    // `email_confirm` marked it, as Supabase Auth's `Confirm` does.
    expect(read.data.user?.user_metadata).toEqual({ plan: "pro", email_verified: true })

    const banned = await admin().updateUserById(id, { ban_duration: "24h" })
    expect(banned.error).toBeNull()
    expect(banned.data.user?.banned_until).toEqual(expect.any(String))
    const refused = await app().auth.signInWithPassword({ email, password })
    expect(apiError(refused.error)).toMatchObject({ status: 400, code: "user_banned" })

    expect((await admin().updateUserById(id, { ban_duration: "none" })).error).toBeNull()
    expect((await app().auth.signInWithPassword({ email, password })).error).toBeNull()

    const newPassword = "another long password"
    expect((await admin().updateUserById(id, { password: newPassword })).error).toBeNull()
    expect((await app().auth.signInWithPassword({ email, password: newPassword })).error).toBeNull()

    // A new address: the user's and their email identity's, verified as asked.
    const moved = freshEmail()
    const changed = await admin().updateUserById(id, { email: moved, email_confirm: true })
    expect(changed.error).toBeNull()
    expect(changed.data.user?.email).toBe(moved)
    expect(changed.data.user?.identities?.map((identity) => identity.identity_data)).toEqual([
      expect.objectContaining({ email: moved, email_verified: true })
    ])
    expect((await app().auth.signInWithPassword({ email: moved, password: newPassword })).error).toBeNull()

    // Soft-deleted: no sign-in, but the admin API still shows the user, as Supabase Auth does,
    // and a second soft delete is no error.
    expect((await admin().deleteUser(id, true)).error).toBeNull()
    const refusedAfter = await app().auth.signInWithPassword({ email: moved, password: newPassword })
    expect(apiError(refusedAfter.error)).toMatchObject({ status: 400, code: "invalid_credentials" })
    const kept = await admin().getUserById(id)
    expect(kept.data.user).toMatchObject({ id, email: "", deleted_at: expect.any(String) })
    const listed = await admin().listUsers({ page: 1, perPage: 1000 })
    expect(listed.data.users.find((user) => user.id === id)?.deleted_at).toEqual(kept.data.user?.deleted_at)
    expect((await admin().deleteUser(id, true)).error).toBeNull()

    expect((await admin().deleteUser(id)).error).toBeNull()
    const gone = await admin().getUserById(id)
    expect(apiError(gone.error)).toMatchObject({ status: 404, code: "user_not_found" })
  })

  it("lists users by filter and sort as Supabase Auth reads them, a filter's _ and % as themselves", async () => {
    const tag = randomUUID().replace(/\D/g, "").slice(0, 12)
    const made: Array<string> = []
    for (const [email, name] of [
      [`a_${tag}@example.com`, "Ada"],
      [`ab${tag}@example.com`, "Abe"],
      [`grace@${tag}.example.com`, `Grace ${tag}`]
    ] as const) {
      const created = await admin().createUser({ email, password, user_metadata: { full_name: name } })
      made.push(created.data.user?.id ?? "")
    }
    const list = async (query: string) => {
      const response = await fetch(`${server.baseUrl}/auth/v1/admin/users?${query}`, {
        headers: { apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}` }
      })
      const body = (await response.json()) as Record<string, unknown>
      const users = Array.isArray(body.users) ? body.users : []
      return {
        status: response.status,
        total: response.headers.get("x-total-count"),
        link: response.headers.get("link"),
        ids: users.map((user: { readonly id?: unknown }) => user.id),
        error: [body.error_code, body.msg]
      }
    }
    const [underscore, lookalike, grace] = made
    expect(await list(`filter=${tag}&sort=created_at%20asc`)).toMatchObject({
      status: 200,
      total: "3",
      ids: [underscore, lookalike, grace]
    })
    expect(await list(`filter=${tag}&sort=created_at+DESC`)).toMatchObject({
      ids: [grace, lookalike, underscore]
    })
    expect(await list(`filter=${tag}`)).toMatchObject({ ids: [grace, lookalike, underscore] })
    // The first match of a script is the user it names: `_` is no wildcard.
    expect(await list(`filter=A_${tag}`)).toMatchObject({ total: "1", ids: [underscore] })
    expect(await list(`filter=grace%20${tag}`)).toMatchObject({ total: "1", ids: [grace] })
    expect(await list(`filter=${tag}&per_page=1&page=2&sort=created_at%20asc`)).toMatchObject({
      total: "3",
      ids: [lookalike]
    })
    // The links' parameters by name, whatever the caller's order, as Supabase Auth writes them:
    // supabase-js reads the page from each link's first parameter.
    expect((await list(`sort=created_at%20asc&per_page=1&filter=${tag}`)).link).toBe(
      `</auth/v1/admin/users?filter=${tag}&page=2&per_page=1&sort=created_at+asc>; rel="next", ` +
        `</auth/v1/admin/users?filter=${tag}&page=3&per_page=1&sort=created_at+asc>; rel="last"`
    )
    expect(await list("sort=email")).toMatchObject({
      status: 400,
      error: ["validation_failed", "Bad Sort Parameters: bad field for sort 'email'"]
    })
    expect(await list("sort=created_at%20up&page=x")).toMatchObject({
      status: 400,
      error: [
        "validation_failed",
        "Bad Sort Parameters: bad direction for sort 'up', only 'asc' and 'desc' allowed"
      ]
    })
  })

  it("refuses the admin API to a user's token and to no token", async () => {
    const supabase = app()
    const signUp = await supabase.auth.signUp({ email: freshEmail(), password })
    const asUser = SupabaseClientSupport.client(server.baseUrl, signUp.data.session?.access_token ?? "").auth
      .admin
    expect(apiError((await asUser.listUsers()).error)).toMatchObject({ status: 403, code: "not_admin" })
    const response = await fetch(`${server.baseUrl}/auth/v1/admin/users`)
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ error_code: "no_authorization" })
  })

  it("verifies its access tokens locally with the published keys (getClaims)", async () => {
    const supabase = app()
    const signUp = await supabase.auth.signUp({ email: freshEmail(), password })
    const claims = await supabase.auth.getClaims()
    expect(claims.error).toBeNull()
    expect(claims.data?.claims.sub).toBe(signUp.data.user?.id)
    expect(claims.data?.header.alg).toBe("RS256")
    const jwks = (await (await fetch(`${server.baseUrl}/auth/v1/.well-known/jwks.json`)).json()) as {
      readonly keys: ReadonlyArray<Record<string, unknown>>
    }
    expect(jwks.keys.length).toBeGreaterThan(0)
    for (const key of jwks.keys) expect(Object.keys(key)).not.toContain("d")
  })
  it("answers single sign-on as Supabase Auth does with SAML off", async () => {
    const sso = await app().auth.signInWithSSO({ domain: "example.com" })
    expect(apiError(sso.error)).toEqual({
      status: 404,
      code: "saml_provider_disabled",
      message: "SAML 2.0 is disabled"
    })
    const metadata = await fetch(`${server.baseUrl}/auth/v1/sso/saml/metadata`)
    expect(metadata.status).toBe(404)
    expect(metadata.headers.get("x-sb-error-code")).toBe("saml_provider_disabled")
    // An identity provider posting an assertion, as a browser form does.
    const acs = await fetch(`${server.baseUrl}/auth/v1/sso/saml/acs`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        SAMLResponse: Buffer.from("<samlp:Response/>").toString("base64"),
        RelayState: "x"
      })
    })
    expect(acs.status).toBe(404)
    expect(await acs.json()).toMatchObject({
      error_code: "saml_provider_disabled",
      msg: "SAML 2.0 is disabled"
    })
  })
})
