/**
 * `npm run bench`, second part: the auth service (Supabase Auth compatible) under load, on a
 * real PostgreSQL, after bench/oauth.ts.
 *
 * Starts the service as its own process, as an operator does (`node --max-semi-space-size=4
 * dist/bootstrap/cli.js auth serve`, configured by its environment, in an empty working
 * directory so that no `.env` is read), on a fresh database `latchkey_bench_<random>` on
 * SQL_URL's server (dropped at the end). The bench migrates it and gives it its RS256 signing
 * key first, through the service's own code, so that it can create the bench user and mint
 * tokens through the ports; the service finds both at its start. Then, from a child process
 * (bench/load.ts), with autocannon:
 *
 * - user: `GET /user` with one of 500 RS256 access tokens in turn;
 * - refresh: `POST /token?grant_type=refresh_token`, every request presenting a fresh refresh
 *   token of a pool minted before the run (BENCH_AUTH_REFRESH_POOL);
 * - password: `POST /token?grant_type=password` for one user (an argon2id verify each);
 * - mixed: 64 connections of the password grant and BENCH_CONNECTIONS of `GET /user` at once,
 *   two autocannon instances in one load generator: the `GET /user` latency while passwords
 *   are being checked;
 * - signup: `POST /signup` with a new address per request, autoconfirm on (a session each).
 *
 * One server process, one set, telemetry off. Prints and records req/s, p50/p99 latency,
 * non-2xx, errors, the CPU each process used and the server's resident memory (idle and after
 * each load); exits 1 if any request errored or got an unexpected status; otherwise records
 * the run in docs/performance.md, in a section of its own beside the oauth service's.
 *
 * Flags: --profile[=user|refresh|password|mixed|signup] (that run only, default refresh, the
 * server started with --cpu-prof; the profile, written to bench/profiles/auth-<kind>-….cpuprofile
 * and summarised, covers the server's whole life; docs untouched), --only=<kind> (that run
 * only, unprofiled; docs untouched), --no-write (docs untouched).
 * Environment: SQL_URL, BENCH_CONNECTIONS (32), BENCH_WARMUP (2 s), BENCH_DURATION (10 s),
 * BENCH_QUIET_WAIT (60 s), as for the oauth bench; BENCH_AUTH_REFRESH_POOL (40000 tokens for
 * the refresh run), BENCH_AUTH_MIXED_PASSWORD_CONNECTIONS (64: the password side of the mixed
 * run).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AuthTables from "../adapters/postgres/auth/AuthTables.js"
import * as Migrations from "../adapters/postgres/Migrations.js"
import { ensureSigningKey } from "../application/auth/EnsureSigningKey.js"
import * as IssueSession from "../application/auth/IssueSession.js"
import * as NewUser from "../application/auth/NewUser.js"
import { SessionStore } from "../application/auth/ports/SessionStore.js"
import { UserRepository } from "../application/auth/ports/UserRepository.js"
import { PasswordHasher } from "../application/ports/PasswordHasher.js"
import { SecretHasher } from "../application/ports/SecretHasher.js"
import { TokenMint } from "../application/ports/TokenMint.js"
import * as AuthConfig from "../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../bootstrap/auth/AuthEnvironment.js"
import * as AuthLayers from "../bootstrap/auth/AuthLayers.js"
import * as AccessTokenClaims from "../domain/auth/AccessTokenClaims.js"
import * as Session from "../domain/auth/Session.js"
import type { User } from "../domain/User.js"
import { Email } from "../domain/User.js"
import * as Database from "./Database.js"
import * as Flags from "./Flags.js"
import * as Machine from "./Machine.js"
import * as Report from "./Report.js"
import * as Runner from "./Runner.js"
import { BenchFailure } from "./Runner.js"

type Kind = "user" | "refresh" | "password" | "mixed" | "signup"
const allKinds: ReadonlyArray<Kind> = ["user", "refresh", "password", "mixed", "signup"]
const { profiled, only, writeDocs } = Flags.select(allKinds, "refresh")

const settings = {
  ...Flags.common,
  refreshPool: Flags.numberFromEnv("BENCH_AUTH_REFRESH_POOL", 40_000),
  mixedPasswordConnections: Flags.numberFromEnv("BENCH_AUTH_MIXED_PASSWORD_CONNECTIONS", 64),
  accessTokenPool: 500
}

const password = "bench-password-1"
const email = "bench@example.com"
/** Sign-ups of this run: a prefix of its own, in case a run's addresses outlive it. */
const signupPrefix = `signup-${randomBytes(4).toString("hex")}-`

const endpoints = {
  user: { name: "user (GET /user)", expectedStatus: 200, target: { requestsPerSecond: 4000 } },
  refresh: {
    name: "refresh grant (POST /token?grant_type=refresh_token)",
    expectedStatus: 200,
    target: { requestsPerSecond: 1500, p99: 40 }
  },
  password: {
    name: "password grant (POST /token?grant_type=password)",
    expectedStatus: 200,
    target: { requestsPerSecond: 140 }
  },
  mixedPassword: { name: "password grant", expectedStatus: 200 },
  mixedUser: { name: "GET /user", expectedStatus: 200, target: { p99: 50 } },
  signup: {
    name: "sign-up, autoconfirm (POST /signup)",
    expectedStatus: 200,
    target: { requestsPerSecond: 130 }
  }
} satisfies Record<string, Runner.Endpoint>

// ---------------------------------------------------------------------------------------------
// Database and token pools, through the service's ports
// ---------------------------------------------------------------------------------------------

/**
 * What the service does at its start, done first by the bench: the migrations and the RS256
 * signing key (the service then finds it as existing). Then the bench user, with a password.
 */
const prepare = (namespace: string) =>
  Effect.gen(function* () {
    yield* Migrations.run(AuthTables.migrationTarget(namespace))
    yield* ensureSigningKey
    const mint = yield* TokenMint
    const passwords = yield* PasswordHasher
    const users = yield* UserRepository
    const now = new Date(yield* Clock.currentTimeMillis)
    const user = NewUser.user({
      id: NewUser.newUserId(yield* mint.uuid),
      aud: "authenticated",
      contact: { _tag: "email", email: yield* Schema.decode(Email)(email) },
      data: {},
      confirmed: true,
      now
    })
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* mint.uuid),
      user,
      provider: "email",
      data: {},
      now
    })
    yield* users.insert(user, [identity], Option.some(yield* passwords.hash(Redacted.make(password))))
    return { user, postgres: yield* Database.serverInfo }
  })

const benchClient: IssueSession.Client = {
  userAgent: Option.some("latchkey bench"),
  ip: Option.some("127.0.0.1")
}

/** Access tokens of sessions signed in as a password sign-in would: `IssueSession.issue`. */
const mintAccessTokens = (user: User, count: number) =>
  Effect.forEach(
    Array.from({ length: count }),
    () =>
      Effect.map(IssueSession.issue(user, "password", benchClient), (grant) =>
        Redacted.value(grant.access.token)
      ),
    { concurrency: 16 }
  )

/**
 * A session's first refresh token, stored as `IssueSession.issue` stores it, without the rest
 * of a sign-in: signing an access token nobody uses (RS256, ~1 ms of CPU) and stamping the
 * sign-in on the one bench user (a row every call would lock) would make a pool of tens of
 * thousands take minutes instead of seconds.
 */
const mintRefreshToken = (user: User) =>
  Effect.gen(function* () {
    const mint = yield* TokenMint
    const hasher = yield* SecretHasher
    const sessions = yield* SessionStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const refreshToken = yield* mint.token("refresh")
    const session = Session.start(
      {
        id: Session.SessionId.make(yield* mint.uuid),
        userId: user.id,
        aal: "aal1",
        amr: [
          new AccessTokenClaims.AmrEntry({ method: "password", timestamp: Math.floor(now.getTime() / 1000) })
        ],
        factorId: Option.none(),
        notAfter: Option.none(),
        userAgent: benchClient.userAgent,
        ip: benchClient.ip,
        tag: Option.none()
      },
      now
    )
    yield* sessions.start(session, yield* hasher.hash(refreshToken))
    return Redacted.value(refreshToken)
  })

const mintRefreshTokens = (user: User, count: number) =>
  Effect.gen(function* () {
    const started = Date.now()
    const tokens = yield* Effect.forEach(Array.from({ length: count }), () => mintRefreshToken(user), {
      concurrency: 32
    })
    console.log(`  minted ${tokens.length} refresh tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return tokens
  })

// ---------------------------------------------------------------------------------------------
// Smoke test: one request of each kind, checked by body, before putting load on them
// ---------------------------------------------------------------------------------------------

/** The `alg` of a JWT's header. */
const algorithmOf = (jwt: string): unknown => {
  const header: unknown = JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString("utf8"))
  return typeof header === "object" && header !== null && "alg" in header ? header.alg : undefined
}

const smoke = (baseUrl: string, refreshToken: string, accessToken: string) =>
  Effect.tryPromise({
    try: async () => {
      const call = async (method: string, path: string, body?: unknown, bearer?: string) => {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            "content-type": "application/json",
            ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        const parsed: unknown = await response.json()
        const fields: Record<string, unknown> =
          typeof parsed === "object" && parsed !== null ? { ...parsed } : {}
        return { status: response.status, body: fields }
      }
      const alg = algorithmOf(accessToken)
      if (alg !== "RS256") throw new Error(`the access tokens are signed with ${String(alg)}, not RS256`)
      const user = await call("GET", "/user", undefined, accessToken)
      if (user.status !== 200 || user.body.email !== email) {
        throw new Error(`GET /user: ${user.status} ${JSON.stringify(user.body)}`)
      }
      const refreshed = await call("POST", "/token?grant_type=refresh_token", { refresh_token: refreshToken })
      if (refreshed.status !== 200 || typeof refreshed.body.refresh_token !== "string") {
        throw new Error(`refresh: ${refreshed.status} ${JSON.stringify(refreshed.body)}`)
      }
      const signedIn = await call("POST", "/token?grant_type=password", { email, password })
      if (signedIn.status !== 200 || typeof signedIn.body.access_token !== "string") {
        throw new Error(`password grant: ${signedIn.status} ${JSON.stringify(signedIn.body)}`)
      }
      const signedUp = await call("POST", "/signup", { email: `${signupPrefix}smoke@example.com`, password })
      if (signedUp.status !== 200 || typeof signedUp.body.access_token !== "string") {
        throw new Error(`sign-up: ${signedUp.status} ${JSON.stringify(signedUp.body)}`)
      }
    },
    catch: (error) => new BenchFailure({ message: `smoke test failed: ${String(error)}` })
  })

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const single = (endpoint: Runner.Endpoint, scenario: Runner.StreamPlan["scenario"]): Runner.RunPlan => ({
  name: endpoint.name,
  streams: [{ endpoint, connections: settings.connections, scenario }]
})

const planOf = (
  kind: Kind,
  accessTokens: ReadonlyArray<string>,
  mint: (count: number) => Effect.Effect<ReadonlyArray<string>, BenchFailure>
): Effect.Effect<Runner.RunPlan, BenchFailure> => {
  switch (kind) {
    case "user":
      return Effect.succeed(single(endpoints.user, { kind: "auth-user", accessTokens }))
    case "refresh":
      return Effect.map(mint(settings.refreshPool), (refreshTokens) =>
        single(endpoints.refresh, { kind: "auth-refresh", refreshTokens })
      )
    case "password":
      return Effect.succeed(single(endpoints.password, { kind: "auth-password", email, password }))
    case "mixed":
      return Effect.succeed({
        name: "mixed",
        streams: [
          {
            endpoint: endpoints.mixedPassword,
            connections: settings.mixedPasswordConnections,
            scenario: { kind: "auth-password", email, password }
          },
          {
            endpoint: endpoints.mixedUser,
            connections: settings.connections,
            scenario: { kind: "auth-user", accessTokens }
          }
        ]
      })
    case "signup":
      return Effect.succeed(
        single(endpoints.signup, { kind: "auth-signup", emailPrefix: signupPrefix, password })
      )
  }
}

const runSection = (at: Date, m: Machine.Machine, results: ReadonlyArray<Runner.VariantResult>) =>
  [
    ...Report.runHead(at, "auth service", m, [
      `\`node ${Runner.serverFlags.join(" ")} dist/bootstrap/cli.js auth serve\`, its own process, RS256 signing key, autoconfirm`
    ]),
    ...results.flatMap((result) =>
      Report.variantSection(`auth service: ${result.variant.name}`, result, undefined)
    )
  ].join("\n")

const main = Effect.gen(function* () {
  const database = yield* Database.fresh(settings.adminUrl)
  console.log(`database ${database.name}`)
  const dataDir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-auth-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const port = yield* Database.freePort
  const baseUrl = `http://127.0.0.1:${port}`
  const serverEnv: Record<string, string> = {
    DATABASE_URL: database.url,
    LATCHKEY_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    AUTHSVC_API_HOST: "127.0.0.1",
    AUTHSVC_API_PORT: String(port),
    AUTHSVC_SITE_URL: "http://127.0.0.1:3000",
    AUTHSVC_API_EXTERNAL_URL: baseUrl,
    AUTHSVC_JWT_SECRET: randomBytes(32).toString("base64url"),
    AUTHSVC_MAILER_AUTOCONFIRM: "true",
    // Every request of the bench comes from 127.0.0.1: one client, far above any real limit.
    AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1000000000"
  }
  const config = yield* Effect.withConfigProvider(
    AuthConfig.server,
    AuthEnvironment.provider(new Map(Object.entries(serverEnv)))
  )
  // The bench's own connection to the database, through the ports, to prepare the data.
  const core = yield* Layer.build(AuthLayers.core(config))
  const prepared = yield* prepare(config.db.namespace).pipe(Effect.provide(core))
  const accessTokens = yield* mintAccessTokens(prepared.user, settings.accessTokenPool).pipe(
    Effect.provide(core)
  )
  const mint = (count: number) =>
    mintRefreshTokens(prepared.user, count).pipe(
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `minting refresh tokens: ${String(error)}` }))
    )
  const service: Runner.Service<Kind> = {
    service: "auth",
    readyPath: "/health",
    cwd: dataDir,
    baseUrl,
    database: database.name,
    serverEnv,
    smoke: Effect.flatMap(mint(1), ([spare]) => smoke(baseUrl, spare ?? "", accessTokens[0] ?? "")),
    kinds: only === undefined ? allKinds : [only],
    plan: (kind) => planOf(kind, accessTokens, mint)
  }
  const variant: Runner.Variant = { name: "telemetry off", env: {}, sets: 1, telemetry: false }
  const profileDirectory =
    profiled === undefined ? undefined : mkdtempSync(join(os.tmpdir(), "latchkey-profile-"))
  const result = yield* Effect.scoped(Runner.runVariant(variant, service, profileDirectory))
  if (profiled !== undefined && profileDirectory !== undefined) {
    yield* Runner.keepProfile(`auth-${profiled}`, profileDirectory).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(profileDirectory, { recursive: true, force: true })))
    )
  }
  const problems = Runner.problemsOfAll([result])
  if (problems.length > 0) {
    return yield* new BenchFailure({ message: `the run failed:\n  ${problems.join("\n  ")}` })
  }
  if (writeDocs) Report.recordRun(runSection(new Date(), Machine.describe(prepared.postgres), [result]))
})

Runner.runMain(main)
