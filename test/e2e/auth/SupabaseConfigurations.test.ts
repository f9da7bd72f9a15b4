import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createClient } from "@supabase/supabase-js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AuthGateway from "../../support/auth/AuthGateway.js"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as SmtpCatcher from "../../support/auth/SmtpCatcher.js"
import * as CliProcess from "../../support/CliProcess.js"
import { freePort } from "../../support/FreePort.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * The built executable started with the configurations Supabase's own tools give its auth
 * service, variable for variable, `GOTRUE_` names and all (test/fixtures/gotrue/, each with the
 * source it was read from): the Supabase CLI's for the `config.toml` that `supabase init`
 * writes, and the auth service of Supabase's self-hosting compose file with its `.env.example`.
 * Only what points into those stacks' own networks is replaced: the database, the mail server,
 * the service's port, and the gateway address applications and mail links use, which here is a
 * stand-in for Kong on a free loopback port (AuthGateway).
 */

const Fixture = Schema.Struct({
  source: Schema.Struct({ repository: Schema.String, commit: Schema.String }),
  environment: Schema.Record({ key: Schema.String, value: Schema.String })
})

const fixture = (name: string) =>
  Schema.decodeUnknownSync(Fixture)(
    JSON.parse(readFileSync(new URL(`../../fixtures/gotrue/${name}.json`, import.meta.url), "utf8"))
  )

interface Running {
  readonly gateway: AuthGateway.AuthGateway
  readonly catcher: SmtpCatcher.SmtpCatcher
  readonly process: CliProcess.Running
  readonly environment: Readonly<Record<string, string>>
}

/**
 * The test's stand-ins for what `environment` points at in its own stack: the gateway's address
 * (`gatewayHost`, as the configuration writes it) replaced with the stand-in's throughout, and
 * the database, mail server, port and data directory in `local`.
 */
const standIns = (environment: Readonly<Record<string, string>>, gatewayHost: string) =>
  Effect.gen(function* () {
    const catcher = yield* SmtpCatcher.start
    const port = yield* freePort
    const gateway = yield* AuthGateway.start(() => new URL(`http://127.0.0.1:${port}`))
    const database = yield* TestDatabase.freshUrl()
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-supabase-config-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const stack: Record<string, string> = {}
    for (const [name, value] of Object.entries(environment)) {
      stack[name] = value.replaceAll(gatewayHost, `127.0.0.1:${gateway.port}`)
    }
    const local: Record<string, string> = {
      GOTRUE_API_PORT: String(port),
      GOTRUE_SMTP_HOST: "127.0.0.1",
      GOTRUE_SMTP_PORT: String(catcher.port),
      // The configurations' database URLs name their own containers; without a PostgreSQL server
      // in this run, the service takes its embedded database, as it does with no URL at all (an
      // empty value is no value).
      GOTRUE_DB_DATABASE_URL: Option.getOrElse(database, () => ""),
      LATCHKEY_DATA_DIR: dataDir
    }
    return { catcher, port, gateway, stack, local }
  })

/** Starts `latchkey auth serve` with `environment` and the test's stand-ins (`standIns`). */
const startWith = (environment: Readonly<Record<string, string>>, gatewayHost: string) =>
  Effect.gen(function* () {
    const { catcher, port, gateway, stack, local } = yield* standIns(environment, gatewayHost)
    const env = { ...stack, ...local }
    const process = yield* CliProcess.spawnCli(["auth", "serve"], env)
    yield* CliProcess.waitUntilAnswering(process, `http://127.0.0.1:${port}/health`)
    return { gateway, catcher, process, environment: env } satisfies Running
  })

/** An API key as Supabase makes them: an HS256 JWT of a role, signed with the JWT secret. */
const apiKey = (secret: string, role: "anon" | "service_role") =>
  new SignJWT({ role, iss: "supabase" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("1 hour")
    .sign(new TextEncoder().encode(secret))

const clientOf = async (running: Running) =>
  createClient(running.gateway.url, await apiKey(running.environment.GOTRUE_JWT_SECRET ?? "", "anon"), {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }
  })

/** supabase-js with the service_role key: the admin API's client. */
const adminOf = async (running: Running) =>
  createClient(
    running.gateway.url,
    await apiKey(running.environment.GOTRUE_JWT_SECRET ?? "", "service_role"),
    {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }
    }
  ).auth.admin

const freshEmail = (what: string) => `${what}-${crypto.randomUUID()}@example.com`
const password = "correct horse battery staple"

const claimsOf = (token: string | undefined) =>
  JSON.parse(Buffer.from((token ?? "").split(".")[1] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >
const headerOf = (token: string | undefined) =>
  JSON.parse(Buffer.from((token ?? "").split(".")[0] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >

describe("the Supabase CLI's configuration (supabase init's config.toml)", () => {
  const cli = fixture("supabase-cli")
  let scope: Scope.CloseableScope
  let running: Running

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    running = await Effect.runPromise(Scope.extend(startWith(cli.environment, "127.0.0.1:54321"), scope))
  }, 90_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("is read from supabase/cli's own source, and starts, saying which GOTRUE_ names it read", () => {
    expect(cli.source.repository).toBe("supabase/cli")
    expect(cli.source.commit).toMatch(/^[0-9a-f]{40}$/)
    const lines = running.process.lines()
    expect(lines.filter((line) => line.includes("configuration:"))).toEqual([])
    const notice = lines.find((line) => line.includes("read Supabase Auth's names as latchkey's"))
    expect(notice).toContain("GOTRUE_MAILER_URLPATHS_CONFIRMATION")
    expect(notice).toContain("API_EXTERNAL_URL")
  })

  it("answers /health and /settings through the gateway", async () => {
    const health = await fetch(`${running.gateway.url}/auth/v1/health`)
    expect(health.status).toBe(200)
    const settings = (await (await fetch(`${running.gateway.url}/auth/v1/settings`)).json()) as Record<
      string,
      unknown
    >
    expect(settings).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: true,
      external: { email: true, phone: false, anonymous_users: false, apple: false }
    })
  })

  it("signs a user up and in through supabase-js, with tokens signed by the CLI's ES256 key", async () => {
    const supabase = await clientOf(running)
    const email = freshEmail("cli")
    const signedUp = await supabase.auth.signUp({ email, password })
    expect(signedUp.error).toBeNull()
    // config.toml leaves confirmations off: the sign-up is a session at once.
    expect(signedUp.data.session?.access_token).toBeTruthy()
    const signedIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.id).toBe(signedUp.data.user?.id)
    const token = signedIn.data.session?.access_token
    expect(headerOf(token)).toMatchObject({ alg: "ES256", kid: "b81269f1-21d8-4f2e-b719-c2240a840d90" })
    expect(claimsOf(token)).toMatchObject({
      iss: `${running.gateway.url}/auth/v1`,
      email,
      role: "authenticated"
    })
    const claims = await supabase.auth.getClaims(token)
    expect(claims.error).toBeNull()
    expect(claims.data?.claims.sub).toBe(signedUp.data.user?.id)
  })

  it("mails links to the CLI's MAILER_URLPATHS URL, which signs the user in through the gateway", async () => {
    const supabase = await clientOf(running)
    const email = freshEmail("cli-recovery")
    expect((await supabase.auth.signUp({ email, password })).error).toBeNull()
    expect((await supabase.auth.resetPasswordForEmail(email)).error).toBeNull()
    const mail = await Mailbox.mailTo(running.catcher, email)
    expect(mail.from?.value[0]).toMatchObject({ address: "admin@email.com", name: "Admin" })
    const { link } = Mailbox.linkAndCode(mail.text)
    expect(`${link.origin}${link.pathname}`).toBe(`${running.gateway.url}/auth/v1/verify`)
    expect(link.searchParams.get("type")).toBe("recovery")
    const answer = await fetch(link, { redirect: "manual" })
    expect(answer.status).toBe(303)
    const location = answer.headers.get("location") ?? ""
    expect(location.startsWith("http://127.0.0.1:3000")).toBe(true)
    expect(Mailbox.fragmentOf(location).get("type")).toBe("recovery")
    expect(Mailbox.fragmentOf(location).get("access_token")).toBeTruthy()
  })
})

describe("Supabase's self-hosting compose file (docker/docker-compose.yml with .env.example)", () => {
  const compose = fixture("self-hosting-compose")
  let scope: Scope.CloseableScope
  let running: Running

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    running = await Effect.runPromise(Scope.extend(startWith(compose.environment, "localhost:8000"), scope))
  }, 90_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("is read from supabase/supabase's own files, and starts", () => {
    expect(compose.source.repository).toBe("supabase/supabase")
    expect(running.process.lines().filter((line) => line.includes("configuration:"))).toEqual([])
  })

  it("answers /health and /settings through the gateway", async () => {
    expect((await fetch(`${running.gateway.url}/auth/v1/health`)).status).toBe(200)
    const settings = (await (await fetch(`${running.gateway.url}/auth/v1/settings`)).json()) as Record<
      string,
      unknown
    >
    expect(settings).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: false,
      phone_autoconfirm: true,
      external: { email: true, phone: true, anonymous_users: false }
    })
  })

  it("signs a user up through supabase-js, confirms the address through the mail, and signs in", async () => {
    const supabase = await clientOf(running)
    const email = freshEmail("compose")
    const signedUp = await supabase.auth.signUp({ email, password })
    expect(signedUp.error).toBeNull()
    expect(signedUp.data.session).toBeNull()
    const refused = await supabase.auth.signInWithPassword({ email, password })
    expect(refused.error?.code).toBe("email_not_confirmed")

    const mail = await Mailbox.mailTo(running.catcher, email)
    expect(mail.from?.value[0]).toMatchObject({ address: "admin@example.com", name: "fake_sender" })
    const { link } = Mailbox.linkAndCode(mail.text)
    // The compose file's path, under its external URL (the gateway).
    expect(`${link.origin}${link.pathname}`).toBe(`${running.gateway.url}/auth/v1/verify`)
    const confirmed = await fetch(link, { redirect: "manual" })
    expect(confirmed.status).toBe(303)
    expect(Mailbox.fragmentOf(confirmed.headers.get("location")).get("type")).toBe("signup")

    const signedIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.email_confirmed_at).toBeTruthy()
  })
})

describe("Supabase Auth's own test configuration (hack/test.env)", () => {
  const own = fixture("supabase-auth-test-env")
  let scope: Scope.CloseableScope
  let running: Running

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    running = await Effect.runPromise(Scope.extend(startWith(own.environment, "localhost:9999"), scope))
  }, 90_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("is read from supabase/auth's own file, and starts, with a warning for each setting that does nothing", () => {
    expect(own.source.repository).toBe("supabase/auth")
    const printed = running.process.lines()
    expect(printed.filter((line) => line.includes("configuration:"))).toEqual([])
    expect(printed.join("\n")).toContain(
      "GOTRUE_TRACING_EXPORTER is default: traces are exported only by opentelemetry"
    )
    expect(printed.join("\n")).toContain("GOTRUE_EXTERNAL_APPLE_SECRET is not a client secret JWT")
  })

  it("signs a user up through supabase-js, the address to confirm, and signs in one the admin API made", async () => {
    const supabase = await clientOf(running)
    const email = freshEmail("own")
    const signedUp = await supabase.auth.signUp({ email, password })
    expect(signedUp.error).toBeNull()
    expect(signedUp.data.session).toBeNull()
    expect((await Mailbox.mailTo(running.catcher, email)).subject).toBeTruthy()

    const admin = await adminOf(running)
    const other = freshEmail("own-admin")
    expect((await admin.createUser({ email: other, password, email_confirm: true })).error).toBeNull()
    const signedIn = await supabase.auth.signInWithPassword({ email: other, password })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.email).toBe(other)
  })
})

/** `variables` as lines of a dotenv file, each value single-quoted (read as written). */
const dotenv = (variables: Readonly<Record<string, string>>) => {
  const quotable = Object.values(variables).every((value) => !/['\n]/.test(value))
  if (!quotable) throw new Error("a value the test writes holds a quote or a line break")
  return Object.entries(variables)
    .map(([name, value]) => `${name}='${value}'`)
    .join("\n")
}

describe("the self-hosting compose file's configuration in files, with Supabase Auth's --config and --config-dir", () => {
  const compose = fixture("self-hosting-compose")
  // What the directory's JSON file sets over the file, and what the environment sets over both.
  const policy = { GOTRUE_DISABLE_SIGNUP: "true", GOTRUE_MAILER_AUTOCONFIRM: "true" }
  const fromEnvironment = { GOTRUE_MAILER_AUTOCONFIRM: "false" }
  let scope: Scope.CloseableScope
  let running: Running
  let migrated: { readonly code: number | null; readonly lines: ReadonlyArray<string> }
  let folder: string

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    folder = mkdtempSync(join(tmpdir(), "latchkey-config-files-"))
    running = await Effect.runPromise(
      Scope.extend(
        Effect.gen(function* () {
          const { catcher, port, gateway, stack, local } = yield* standIns(
            compose.environment,
            "localhost:8000"
          )
          const file = join(folder, "gotrue.env")
          writeFileSync(file, dotenv(stack))
          const directory = join(folder, "conf.d")
          mkdirSync(directory)
          writeFileSync(join(directory, "10-local.env"), dotenv(local))
          writeFileSync(join(directory, "20-policy.json"), JSON.stringify(policy))
          const migrate = yield* CliProcess.spawnCli(
            ["auth", "migrate", "-c", file, "-d", directory],
            fromEnvironment
          )
          migrated = { code: yield* migrate.exited, lines: migrate.lines() }
          const process = yield* CliProcess.spawnCli(
            ["auth", "serve", "--config", file, "--config-dir", directory],
            fromEnvironment
          )
          yield* CliProcess.waitUntilAnswering(process, `http://127.0.0.1:${port}/health`)
          return { gateway, catcher, process, environment: { ...stack, ...local } } satisfies Running
        }),
        scope
      )
    )
  }, 90_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(folder, { recursive: true, force: true })
  })

  it("migrates with the files alone, and starts saying the directory is read once", () => {
    expect(migrated.code).toBe(0)
    expect(migrated.lines.join("\n")).toMatch(/auth schema is (at version|up to date)/)
    expect(running.process.lines().filter((line) => line.includes("configuration:"))).toEqual([])
    expect(running.process.lines().join("\n")).toMatch(/--config-dir \S+ is read once, at start/)
  })

  it("takes the directory's files over the file, and the environment over both", async () => {
    const settings = (await (await fetch(`${running.gateway.url}/auth/v1/settings`)).json()) as Record<
      string,
      unknown
    >
    expect(settings).toMatchObject({
      disable_signup: true,
      mailer_autoconfirm: false,
      phone_autoconfirm: true,
      external: { email: true, phone: true }
    })
  })

  it("refuses supabase-js's sign-up, and signs in a user the admin API made", async () => {
    const supabase = await clientOf(running)
    const email = freshEmail("files")
    const refused = await supabase.auth.signUp({ email, password })
    expect(refused.error?.code).toBe("signup_disabled")

    const admin = await adminOf(running)
    const created = await admin.createUser({ email, password, email_confirm: true })
    expect(created.error).toBeNull()
    const signedIn = await supabase.auth.signInWithPassword({ email, password })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.email).toBe(email)
  })

  it("stops on a file or directory that cannot be read, naming it on one line", async () => {
    const absent = join(folder, "absent.env")
    const notJson = join(folder, "broken.d")
    mkdirSync(notJson)
    writeFileSync(join(notJson, "settings.json"), JSON.stringify({ GOTRUE_JWT_EXP: 3600 }))
    for (const [args, line] of [
      [["-c", absent], `latchkey: configuration: ${absent}: cannot be read (it does not exist)`],
      [
        ["-d", notJson],
        `latchkey: configuration: ${join(notJson, "settings.json")}: expected a JSON object whose values are strings`
      ]
    ] as const) {
      const result = await Effect.runPromise(
        Effect.scoped(
          // In the test's folder: no `.env` of the working directory is read beside them.
          Effect.flatMap(CliProcess.spawnCli(["auth", "serve", ...args], {}, { cwd: folder }), (process) =>
            Effect.map(process.exited, (code) => ({ code, lines: process.lines() }))
          )
        )
      )
      expect(result).toEqual({ code: 1, lines: [line] })
    }
  })
})
