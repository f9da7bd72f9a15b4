import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { MessageJson } from "../../../adapters/devinbox/InboxHttp.js"
import * as Migrations from "../../../adapters/postgres/Migrations.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import * as OAuthConfig from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../../../bootstrap/oauth/OAuthLayers.js"
import * as Services from "../../../bootstrap/Services.js"
import { ClientId } from "../../../domain/Ids.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import { freePort } from "../../support/FreePort.js"

/**
 * `npm start` in this process: `latchkey oauth migrate`, then `latchkey dev` with nothing
 * configured but what a second copy on this machine needs (free ports, a data folder of its
 * own, loopback addresses), on the embedded database. The auth service confirms addresses, and
 * its mail is read where a developer reads it: the development inbox.
 */

let running: Fiber.RuntimeFiber<unknown, unknown> | undefined
let dataDir = ""
let authUrl = ""
let oauthUrl = ""
let inboxUrl = ""
let anonKey = ""

/** Variables `latchkey dev` reads, as a developer's shell would have them; "" hides a `.env` value. */
const environment = (ports: { auth: number; oauth: number; inbox: number; smtp: number }) => ({
  LATCHKEY_DATA_DIR: dataDir,
  LOG_LEVEL: "warn",
  API_HOST: "127.0.0.1",
  PORT: String(ports.oauth),
  BASE_URL: `http://127.0.0.1:${ports.oauth}`,
  AUTHSVC_API_HOST: "127.0.0.1",
  AUTHSVC_API_PORT: String(ports.auth),
  AUTHSVC_API_EXTERNAL_URL: `http://127.0.0.1:${ports.auth}`,
  AUTHSVC_SMTP_PORT: String(ports.smtp),
  LATCHKEY_INBOX_PORT: String(ports.inbox),
  AUTHSVC_SMTP_HOST: "",
  AUTHSVC_MAILER_AUTOCONFIRM: "",
  AUTHSVC_SMS_AUTOCONFIRM: "",
  AUTHSVC_DB_DATABASE_URL: "",
  DATABASE_URL: "",
  SQL_URL: undefined,
  OAUTH2_PROVIDER: undefined
})

/** `latchkey oauth migrate`, as `npm start` runs it first. */
const migrateOAuth = Effect.gen(function* () {
  const config = yield* OAuthConfig.database
  const cliClientId = yield* OAuthConfig.cliClientId
  yield* Effect.scoped(
    Effect.gen(function* () {
      yield* Migrations.run("oauth")
      yield* ManageClients.seedBuiltinCliClient(ClientId.make(cliClientId))
    }).pipe(Effect.provide(OAuthLayers.core(config)))
  )
})

/** Until `url` answers 2xx: a minute at most, and not at all once `latchkey dev` has stopped. */
const answers = (url: string) =>
  Effect.gen(function* () {
    const stopped = running === undefined ? Option.none() : yield* Fiber.poll(running)
    if (Option.isSome(stopped)) {
      const cause = Exit.isFailure(stopped.value) ? Cause.pretty(stopped.value.cause) : "it returned"
      return yield* Effect.dieMessage(`latchkey dev stopped: ${cause}`)
    }
    const response = yield* Effect.tryPromise(() => fetch(url))
    if (!response.ok) return yield* Effect.fail(new Error(`${url} answered ${response.status}`))
  }).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.minutes(1)))),
    Effect.orDie
  )

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "latchkey-dev-e2e-"))
  const ports = await Effect.runPromise(
    Effect.all({ auth: freePort, oauth: freePort, inbox: freePort, smtp: freePort })
  )
  for (const [name, value] of Object.entries(environment(ports))) vi.stubEnv(name, value)
  authUrl = `http://127.0.0.1:${ports.auth}`
  oauthUrl = `http://127.0.0.1:${ports.oauth}`
  inboxUrl = `http://127.0.0.1:${ports.inbox}`
  await Effect.runPromise(migrateOAuth)
  running = Effect.runFork(Services.serveAll("dev"))
  await Effect.runPromise(
    Effect.all([
      answers(`${authUrl}/health`),
      answers(`${oauthUrl}/.well-known/oauth-authorization-server`),
      answers(`${inboxUrl}/api/messages`)
    ])
  )
  anonKey = await SupabaseClientSupport.apiKey("anon")
}, 120_000)

afterAll(async () => {
  if (running !== undefined) await Effect.runPromise(Fiber.interrupt(running))
  vi.unstubAllEnvs()
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

/** The mail and texts the inbox holds for `to`, as its JSON API lists them. */
const inboxFor = (to: string) =>
  Effect.tryPromise(() =>
    fetch(`${inboxUrl}/api/messages?to=${encodeURIComponent(to)}`).then(
      (response): Promise<unknown> => response.json()
    )
  ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(MessageJson))))

/** The first message for `to`, once the outbox's worker has delivered it (30 s at most). */
const firstMessageTo = (to: string) =>
  Effect.runPromise(
    inboxFor(to).pipe(
      Effect.flatMap((messages) =>
        messages.length === 0 ? Effect.fail(new Error(`no message to ${to} yet`)) : Effect.succeed(messages)
      ),
      Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
      Effect.map((messages) => messages.at(-1))
    )
  )

describe("npm start: sign-up confirmed through the development inbox", () => {
  it("confirms addresses (mail and phone), as a production service does", async () => {
    const settings = await fetch(`${authUrl}/settings`).then((response) => response.json())
    expect(settings).toMatchObject({ mailer_autoconfirm: false, phone_autoconfirm: false })
  })

  it("mails the confirmation to the inbox; its link signs the new user in", async () => {
    const supabase = SupabaseClientSupport.client(authUrl, anonKey)
    const email = `dev-${crypto.randomUUID()}@example.com`
    const password = "correct horse battery staple"
    const signUp = await supabase.auth.signUp({ email, password })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session).toBeNull()
    const early = await supabase.auth.signInWithPassword({ email, password })
    expect(SupabaseClientSupport.apiError(early.error).code).toBe("email_not_confirmed")

    const mail = await firstMessageTo(email)
    expect(mail).toMatchObject({
      kind: "mail",
      to: email,
      from: "noreply@localhost",
      subject: "Confirm your email address"
    })
    const link = mail?.links.find((candidate) => candidate.startsWith(`${authUrl}/verify?`))
    if (link === undefined) throw new Error(`no confirmation link in ${JSON.stringify(mail?.links)}`)
    expect(new URL(link).searchParams.get("type")).toBe("signup")

    const followed = await fetch(link, { redirect: "manual" })
    expect(followed.status).toBe(303)
    const location = new URL(followed.headers.get("location") ?? "")
    expect(`${location.origin}${location.pathname}`).toBe("http://localhost:3000/")
    const fragment = new URLSearchParams(location.hash.slice(1))
    const accessToken = fragment.get("access_token") ?? ""
    const refreshToken = fragment.get("refresh_token") ?? ""

    const user = await supabase.auth.getUser(accessToken)
    expect(user.error).toBeNull()
    expect(user.data.user?.email).toBe(email)
    expect(user.data.user?.email_confirmed_at).toBeTruthy()
    const session = await supabase.auth.setSession({ access_token: accessToken, refresh_token: refreshToken })
    expect(session.error).toBeNull()
    const signedIn = await supabase.auth.getSession()
    expect(signedIn.data.session?.user.email).toBe(email)
    expect((await supabase.auth.getUser()).data.user?.id).toBe(user.data.user?.id)
  })

  it("texts a phone's code to the inbox; the code signs the new user in", async () => {
    const supabase = SupabaseClientSupport.client(authUrl, anonKey)
    const phone = `+1555${String(Math.floor(1_000_000 + Math.random() * 8_999_999))}`
    const sent = await supabase.auth.signInWithOtp({ phone })
    expect(sent.error).toBeNull()
    const text = await firstMessageTo(phone)
    expect(text).toMatchObject({ kind: "sms", to: phone, subject: null })
    const code = /(\d{6})/.exec(text?.text ?? "")?.[1] ?? ""
    const verified = await supabase.auth.verifyOtp({ phone, token: code, type: "sms" })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.phone).toBe(phone.slice(1))
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy()
  })

  it("shows the mail on the inbox's page, and forgets everything on DELETE", async () => {
    const supabase = SupabaseClientSupport.client(authUrl, anonKey)
    const email = `page-${crypto.randomUUID()}@example.com`
    await supabase.auth.signUp({ email, password: "correct horse battery staple" })
    await firstMessageTo(email)
    const page = await fetch(`${inboxUrl}/`).then((response) => response.text())
    expect(page).toContain(email)
    expect(page).toContain("Confirm your email address")
    expect((await fetch(`${inboxUrl}/api/messages`, { method: "DELETE" })).status).toBe(204)
    expect(await Effect.runPromise(inboxFor(email))).toEqual([])
  })
})
