import { createHash } from "node:crypto"
import type { SupabaseClient, User } from "@supabase/supabase-js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ProviderCatalog from "../../../adapters/idp/ProviderCatalog.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import type * as FakeProvider from "../../support/idp/FakeProvider.js"
import * as ProviderCases from "../../support/idp/ProviderCases.js"
import * as TwitterFake from "../../support/idp/TwitterFake.js"
import * as AuthServerHarness from "../support/InProcessAuth.js"

/**
 * Every one of the twenty-four external provider keys (the spec's eighteen, Supabase Auth's
 * `linkedin_oidc`, `slack_oidc`, `fly`, `kakao`, `x` and `zoom`) signs in through the auth service over HTTP, each
 * played by a local fake of it: GET /authorize sends the browser to the fake, the fake's answer
 * comes back to /callback (POSTed as a form for Apple), the service exchanges the code at the
 * fake and reads the profile, and the browser goes to the application with the session in the
 * fragment. The user, its identity and the fragment are checked against what the provider said.
 *
 * Addresses are confirmed by mail here (MAILER_AUTOCONFIRM off), so that a provider's word on an
 * address matters: an address it did not verify is not taken as confirmed.
 */

const siteUrl = "http://localhost:3000"
const welcome = `${siteUrl}/welcome`

interface Started {
  readonly fake: FakeProvider.FakeProvider
  readonly setAuthorization: (url: URL) => void
}

let scope: Scope.CloseableScope
let baseUrl = ""
let catcher: SmtpCatcher.SmtpCatcher
let twitter: FakeProvider.FakeProvider
let supabase: SupabaseClient
let admin: SupabaseClient
const fakes = new Map<ProviderCatalog.ExternalProviderName, Started>()

/** The `EXTERNAL_<NAME>_*` variables enabling one provider. */
const variables = (name: string, clientId: string, secret: string, url: URL | undefined) => {
  const prefix = `AUTHSVC_EXTERNAL_${name.toUpperCase()}`
  return {
    [`${prefix}_ENABLED`]: "true",
    [`${prefix}_CLIENT_ID`]: clientId,
    [`${prefix}_SECRET`]: secret,
    ...(url === undefined ? {} : { [`${prefix}_URL`]: url.href })
  }
}

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(
    Scope.extend(
      Effect.gen(function* () {
        catcher = yield* SmtpCatcher.start
        let env: Record<string, string> = {
          ...SmtpCatcher.mailingEnv(catcher),
          // Snapchat shares no address: its sign-ins are let through without one.
          AUTHSVC_EXTERNAL_SNAPCHAT_EMAIL_OPTIONAL: "true"
        }
        const origins: Record<string, URL> = {}
        for (const testCase of ProviderCases.cases) {
          const { fake, setAuthorization } = yield* ProviderCases.fakeFor(testCase)
          fakes.set(testCase.name, { fake, setAuthorization })
          origins[testCase.name] = fake.origin
          const secret = yield* ProviderCases.secretFor(testCase)
          // What the adapter test gives as `issuerUrl` is what EXTERNAL_<X>_URL configures.
          const url = testCase.credentials?.(fake).issuerUrl
          env = { ...env, ...variables(testCase.name, ProviderCases.clientId, secret, url) }
        }
        twitter = yield* TwitterFake.start
        origins.twitter = twitter.origin
        env = {
          ...env,
          ...variables("twitter", TwitterFake.consumerKey, TwitterFake.consumerSecret, undefined)
        }
        return yield* AuthServerHarness.start({
          // The fakes listen on loopback, which the outbound guard refuses unless listed.
          env: { ...env, AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1" },
          providerOrigins: origins
        })
      }),
      scope
    )
  )
  baseUrl = running.baseUrl
  supabase = SupabaseClientSupport.client(baseUrl, await SupabaseClientSupport.apiKey("anon"))
  admin = SupabaseClientSupport.client(baseUrl, await SupabaseClientSupport.apiKey("service_role"))
}, 120_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const startedFor = (name: ProviderCatalog.ExternalProviderName): Started => {
  const started = fakes.get(name)
  if (started === undefined) throw new Error(`no fake for ${name}`)
  return started
}

/** GET /authorize as supabase-js `signInWithOAuth` sends the browser there: 302 to the provider. */
const authorize = async (
  name: ProviderCatalog.ExternalProviderName,
  parameters: Readonly<Record<string, string>>
) => {
  const url = new URL(`${baseUrl}/authorize`)
  url.searchParams.set("provider", name)
  url.searchParams.set("redirect_to", welcome)
  // The case names the provider's own parameters; the application sends ours (WorkOS's
  // `provider` is `workos_provider` here, `provider` being the provider's name).
  const ours = Object.entries(ProviderCatalog.traits(name).parameters)
  for (const [theirs, value] of Object.entries(parameters)) {
    const mapped = ours.find(([, candidate]) => candidate === theirs)
    if (mapped === undefined) throw new Error(`${name} takes no ${theirs}`)
    url.searchParams.set(mapped[0], value)
  }
  const response = await fetch(url, { redirect: "manual" })
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location") ?? "")
}

/** Where our callback sends the browser: the provider's answer as a query, or Apple's form. */
const callBack = async (
  name: ProviderCatalog.ExternalProviderName,
  fields: Readonly<Record<string, string>>
) => {
  const url = new URL(`${baseUrl}/callback`)
  const response =
    ProviderCatalog.traits(name).callback === "form_post"
      ? // ProviderFormPost.ts answers the POSTed form itself, with no redirect to a GET in between.
        await fetch(url, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" })
      : await fetch(`${url.href}?${new URLSearchParams(fields)}`, { redirect: "manual" })
  expect(response.status).toBe(302)
  return new URL(response.headers.get("location") ?? "")
}

/**
 * One sign-in at an OAuth 2.0 provider's fake: the authorization URL the service built, the
 * provider's answer to our callback, and the token request the fake received, checked.
 */
const signIn = async (testCase: ProviderCases.Case) => {
  const { fake, setAuthorization } = startedFor(testCase.name)
  const traits = ProviderCatalog.traits(testCase.name)
  const authorization = await authorize(testCase.name, testCase.parameters ?? {})
  expect(`${authorization.origin}${authorization.pathname}`).toBe(
    `${fake.origin.origin}${testCase.authorize}`
  )
  expect(authorization.searchParams.get("client_id")).toBe(ProviderCases.clientId)
  expect(authorization.searchParams.get("redirect_uri")).toBe(`${baseUrl}/callback`)
  for (const [name, value] of Object.entries(testCase.sentParameters ?? {}))
    expect(authorization.searchParams.get(name)).toBe(value)
  // The fake's ID token carries this URL's nonce, as the provider's would.
  setAuthorization(authorization)
  const state = authorization.searchParams.get("state") ?? ""
  expect(state).not.toBe("")

  const code = `code-${testCase.name}-${crypto.randomUUID()}`
  const location = await callBack(testCase.name, { code, state, ...testCase.callback })

  const token = fake.sent(`POST ${testCase.token}`).find((request) => request.form.get("code") === code)
  expect(token?.form.get("grant_type")).toBe("authorization_code")
  expect(token?.form.get("redirect_uri")).toBe(`${baseUrl}/callback`)
  const verifier = token?.form.get("code_verifier") ?? null
  if (traits.pkce) {
    expect(verifier).not.toBeNull()
    expect(
      createHash("sha256")
        .update(verifier ?? "")
        .digest("base64url")
    ).toBe(authorization.searchParams.get("code_challenge"))
  } else {
    expect(verifier).toBeNull()
  }
  return location
}

/** The session of the fragment, checked as Supabase Auth writes it; its access token. */
const expectSession = (
  location: URL,
  provider: string,
  providerToken: string,
  providerRefreshToken: string | undefined
) => {
  expect(`${location.origin}${location.pathname}`).toBe(welcome)
  expect(location.search).toBe("")
  const fragment = Object.fromEntries(new URLSearchParams(location.hash.slice(1)))
  expect(fragment).toEqual({
    access_token: expect.any(String),
    refresh_token: expect.any(String),
    token_type: "bearer",
    // The spec's rule 14 names the provider; `sb` marks the redirect as Supabase Auth's.
    provider,
    sb: "",
    expires_in: expect.stringMatching(/^[1-9]\d*$/),
    expires_at: expect.stringMatching(/^[1-9]\d*$/),
    provider_token: providerToken,
    ...(providerRefreshToken === undefined ? {} : { provider_refresh_token: providerRefreshToken })
  })
  const expiresAt = Number(fragment.expires_at)
  expect(Math.abs(expiresAt - Date.now() / 1000 - Number(fragment.expires_in))).toBeLessThan(60)
  return fragment.access_token ?? ""
}

interface Expected {
  readonly name: ProviderCatalog.ExternalProviderName
  readonly subject: string
  readonly email: string | undefined
  readonly data: Readonly<Record<string, unknown>>
}

/** The user behind an access token, with one identity of the provider holding what it said. */
const expectUser = async (accessToken: string, expected: Expected): Promise<User> => {
  const { data, error } = await supabase.auth.getUser(accessToken)
  expect(error).toBeNull()
  const user = data.user
  if (user === null) throw new Error(`no user for the ${expected.name} session`)
  expect(user.email).toBe(expected.email ?? "")
  if (expected.email === undefined) expect(user.email_confirmed_at).toBeUndefined()
  else expect(user.email_confirmed_at).toEqual(expect.any(String))
  expect(user.app_metadata).toEqual({ provider: expected.name, providers: [expected.name] })
  // The profile is the user's metadata too (full name, avatar…), as Supabase Auth makes it.
  expect(user.user_metadata).toMatchObject(expected.data)
  expect(user.identities).toHaveLength(1)
  const identity = user.identities?.[0]
  expect(identity).toMatchObject({
    id: expected.subject,
    user_id: user.id,
    provider: expected.name,
    identity_data: { ...expected.data, sub: expected.subject }
  })
  if (expected.email === undefined) expect(identity).not.toHaveProperty("email")
  else expect(identity).toHaveProperty("email", expected.email.toLowerCase())
  return user
}

/** Every user, as the admin API lists them. */
const allUsers = async () => {
  const { data, error } = await admin.auth.admin.listUsers({ perPage: 1000 })
  expect(error).toBeNull()
  return data.users
}

const expectedOf = (testCase: ProviderCases.Case): Expected => ({
  name: testCase.name,
  subject: testCase.subject,
  email: testCase.email,
  data: testCase.data(startedFor(testCase.name).fake)
})

describe("every external provider signs in through the auth service against a local fake of it", () => {
  const verified = ProviderCases.cases.filter((testCase) => testCase.emailVerified)
  const unverified = ProviderCases.cases.filter(
    (testCase) => !testCase.emailVerified && testCase.email !== undefined
  )
  const withoutEmail = ProviderCases.cases.filter((testCase) => testCase.email === undefined)

  it("covers all twenty-four provider keys: the OAuth 2.0 ones of the table, and twitter", () => {
    expect([...ProviderCases.cases.map((testCase) => testCase.name), "twitter"].sort()).toEqual(
      [...ProviderCatalog.ExternalProviderName.literals].sort()
    )
    expect(verified.length + unverified.length + withoutEmail.length).toBe(ProviderCases.cases.length)
    expect(unverified.length).toBeGreaterThan(0)
    expect(withoutEmail.length).toBeGreaterThan(0)
  })

  for (const testCase of verified) {
    it(`${testCase.name}: a verified address makes a confirmed user with one ${testCase.name} identity; the fragment holds the session and the provider's tokens`, async () => {
      const tokens = ProviderCases.providerTokens(testCase)
      const location = await signIn(testCase)
      const accessToken = expectSession(location, testCase.name, tokens.access, tokens.refresh)
      await expectUser(accessToken, expectedOf(testCase))
    })
  }

  for (const testCase of withoutEmail) {
    it(`${testCase.name}: no address, with EXTERNAL_${testCase.name.toUpperCase()}_EMAIL_OPTIONAL, makes a user without one, signed in`, async () => {
      // ExternalCallback lets a profile without an address through when the provider's
      // EMAIL_OPTIONAL is on; the user then has no address to confirm, so nothing stops the
      // sign-in (signInOrUp's `unverified` needs an address).
      const tokens = ProviderCases.providerTokens(testCase)
      const location = await signIn(testCase)
      const accessToken = expectSession(location, testCase.name, tokens.access, tokens.refresh)
      const user = await expectUser(accessToken, expectedOf(testCase))
      expect(user.confirmation_sent_at).toBeUndefined()
    })
  }

  for (const testCase of unverified) {
    it(`${testCase.name}: an address the provider did not verify makes an unconfirmed user and a confirmation mail, not a session; once confirmed, the sign-in goes through`, async () => {
      const email = testCase.email ?? ""
      const expected = expectedOf(testCase)
      // signInOrUp (ExternalAccount.ts): a new user whose address the provider did not verify,
      // with MAILER_AUTOCONFIRM off, is made unconfirmed and mailed, and the sign-in stops with
      // provider_email_needs_verification, which the redirect names `access_denied` (CallbackRedirect.ts),
      // as Supabase Auth does.
      const refused = await signIn(testCase)
      expect(`${refused.origin}${refused.pathname}`).toBe(welcome)
      const error = {
        error: "access_denied",
        error_code: "provider_email_needs_verification",
        error_description: `Unverified email with ${testCase.name}. A confirmation email has been sent to your ${testCase.name} email`
      }
      expect(Object.fromEntries(refused.searchParams)).toEqual(error)
      expect(Object.fromEntries(new URLSearchParams(refused.hash.slice(1)))).toEqual({ ...error, sb: "" })

      const made = (await allUsers()).find((user) => user.email === email)
      expect(made?.email_confirmed_at).toBeUndefined()
      expect(made?.confirmation_sent_at).toEqual(expect.any(String))
      expect(made?.identities?.map((identity) => [identity.provider, identity.id])).toEqual([
        [testCase.name, testCase.subject]
      ])

      // The same provider account again before the address is confirmed: refused again, with
      // no session, as Supabase Auth checks confirmation for returning accounts too. The mail
      // is not sent again within SMTP_MAX_FREQUENCY, so the first link stays the one to use.
      const again = await signIn(testCase)
      expect(Object.fromEntries(again.searchParams)).toEqual(error)
      expect(new URLSearchParams(again.hash.slice(1)).get("access_token")).toBeNull()
      const still = (await allUsers()).find((user) => user.email === email)
      expect(still?.id).toBe(made?.id)
      expect(still?.email_confirmed_at).toBeUndefined()

      // The mailed link confirms the address and signs the user in at the site.
      const { link } = Mailbox.linkAndCode((await Mailbox.mailTo(catcher, email)).text)
      const confirmed = await fetch(link, { redirect: "manual" })
      expect(confirmed.status).toBe(303)
      const landing = new URL(confirmed.headers.get("location") ?? "")
      expect(`${landing.origin}${landing.pathname}`).toBe(`${siteUrl}/`)
      // Confirming marks the metadata's `email_verified`, as Supabase Auth's `Confirm` does.
      const confirmedUser = await expectUser(Mailbox.fragmentOf(landing.href).get("access_token") ?? "", {
        ...expected,
        data: { ...expected.data, email_verified: true }
      })
      expect(confirmedUser.id).toBe(made?.id)

      // The same provider account again: the same user, now signed in, the provider's profile
      // merged into the metadata again (its `email_verified` with it).
      const tokens = ProviderCases.providerTokens(testCase)
      const accessToken = expectSession(await signIn(testCase), testCase.name, tokens.access, tokens.refresh)
      expect((await expectUser(accessToken, expected)).id).toBe(made?.id)
    })
  }

  it("twitter (OAuth 1.0a): request token, the user sent to authenticate, the callback's verifier exchanged with the request token's secret; user, identity and fragment", async () => {
    const authorization = await authorize("twitter", {})
    expect(`${authorization.origin}${authorization.pathname}`).toBe(
      `${twitter.origin.origin}/oauth/authenticate`
    )
    expect(authorization.searchParams.get("oauth_token")).toBe(TwitterFake.requestToken.key)
    // OAuth 1.0a has no state: our callback, with ours in it, went with the request-token request.
    const asked = twitter.sent("POST /oauth/request_token").at(-1)
    const callback = new URL(
      TwitterFake.oauthParameters(asked?.headers.authorization).get("oauth_callback") ?? ""
    )
    expect(`${callback.origin}${callback.pathname}`).toBe(`${baseUrl}/callback`)
    const state = callback.searchParams.get("state") ?? ""
    expect(state).not.toBe("")

    const location = await callBack("twitter", {
      state,
      oauth_token: TwitterFake.requestToken.key,
      oauth_verifier: TwitterFake.verifier
    })
    // The fake answers only a request signed with the request token's secret.
    expect(twitter.sent("POST /oauth/access_token").at(-1)?.form.get("oauth_verifier")).toBe(
      TwitterFake.verifier
    )
    const accessToken = expectSession(location, "twitter", TwitterFake.accessToken.key, undefined)
    await expectUser(accessToken, {
      name: "twitter",
      subject: TwitterFake.profile.subject,
      email: TwitterFake.profile.email,
      data: TwitterFake.profile.data
    })
  })

  it("a provider that gives no address, without EMAIL_OPTIONAL, sends the error back and makes nobody", async () => {
    const discord = ProviderCases.cases.find((testCase) => testCase.name === "discord")
    if (discord === undefined) throw new Error("no discord case")
    const { fake } = startedFor("discord")
    const route = "GET /api/users/@me"
    const kept = fake.routes.get(route)
    if (kept === undefined) throw new Error(`no ${route} route`)
    fake.routes.set(route, () => ({
      json: { id: "80351110224678999", username: "quiet", discriminator: "0", email: null, verified: false }
    }))
    try {
      // ExternalCallback refuses a profile without an address unless the provider's
      // EMAIL_OPTIONAL is on, before any user is looked up or made.
      const location = await signIn(discord)
      expect(`${location.origin}${location.pathname}`).toBe(welcome)
      const error = {
        error: "server_error",
        error_code: "unexpected_failure",
        error_description: "Error getting user email from external provider"
      }
      expect(Object.fromEntries(location.searchParams)).toEqual(error)
      expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual({ ...error, sb: "" })
      expect(
        (await allUsers()).flatMap((user) => user.identities ?? []).map((identity) => identity.id)
      ).not.toContain("80351110224678999")
    } finally {
      fake.routes.set(route, kept)
    }
  })
})
