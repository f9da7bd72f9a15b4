/**
 * `npm run bench`: the oauth service under load, on a real PostgreSQL.
 *
 * Starts the service as its own process, exactly as an operator does (`node
 * --max-semi-space-size=4 dist/bootstrap/cli.js oauth serve`, configured by its environment, its
 * upstream elsewhere), on a fresh database `latchkey_bench_<random>` on SQL_URL's server (dropped
 * at the end), and drives its endpoints with autocannon from a child process (bench/load.ts): the
 * refresh grant, introspection and dynamic registration, then the static discovery document as
 * the floor of the HTTP stack. Twice with telemetry off (the second set is the leak check: the
 * server's memory must not grow from one set to the next), then once with tracing and metrics on,
 * exporting over OTLP to a collector stand-in (bench/Collector.ts). Prints req/s, p50/p99
 * latency, non-2xx, errors, the CPU each process used and the server's resident memory (idle and
 * after each load); exits 1 if any request errored or got an unexpected status; otherwise
 * records the run as JSON lines in bench/results/oauth.jsonl and rewrites the current table of
 * docs/performance.md (bench/Results.ts).
 *
 * `npm run bench` runs this first, then bench/auth.ts; each records its own lines.
 *
 * Flags: --profile[=refresh|introspect|register|discovery] (that run only, default refresh, the
 * server started with --cpu-prof; the profile, written to bench/profiles/ and summarised, covers
 * the server's whole life: start, warm-up and the measured run; nothing recorded), --only=<kind>
 * (that run only, telemetry off, unprofiled; nothing recorded), --no-write (nothing recorded).
 * Environment: SQL_URL, BENCH_CONNECTIONS (32), BENCH_WARMUP (2 s), BENCH_DURATION (10 s),
 * BENCH_REFRESH_POOL (120000 tokens for each refresh run), BENCH_QUIET_WAIT (60 s: how long to
 * wait for an idle machine). The shared parts live in bench/Flags.ts, Database.ts, Machine.ts,
 * Runner.ts, Report.ts and Results.ts.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as ManageClients from "../application/oauth/ManageClients.js"
import { TokenStore } from "../application/oauth/ports/TokenStore.js"
import { UpstreamUsers } from "../application/oauth/ports/UpstreamUsers.js"
import { Secrets } from "../application/ports/Secrets.js"
import * as OAuthConfig from "../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../bootstrap/oauth/OAuthLayers.js"
import { ClientId, FamilyId, GrantId, IdentityId, UserId } from "../domain/Ids.js"
import * as AccessToken from "../domain/oauth/AccessToken.js"
import { oauthPolicy } from "../domain/oauth/RefreshPolicy.js"
import * as RefreshTokenFamily from "../domain/RefreshTokenFamily.js"
import * as Collector from "./Collector.js"
import * as Database from "./Database.js"
import * as Flags from "./Flags.js"
import * as Machine from "./Machine.js"
import type { Scenario } from "./protocol.js"
import * as Report from "./Report.js"
import * as Results from "./Results.js"
import * as Runner from "./Runner.js"
import { BenchFailure } from "./Runner.js"

type Kind = "refresh" | "introspect" | "register" | "discovery"
const allKinds: ReadonlyArray<Kind> = ["refresh", "introspect", "register", "discovery"]
const { profiled, only, record } = Flags.select(allKinds, "refresh")

const settings = {
  ...Flags.common,
  refreshPool: Flags.numberFromEnv("BENCH_REFRESH_POOL", 120_000),
  introspectionPool: 500
}

const introspectionToken = randomBytes(32).toString("base64url")
const clientId = ClientId.make("cli")
const registration = {
  redirect_uris: ["http://127.0.0.1:53682/callback"],
  client_name: "latchkey bench",
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"]
}

const endpoints: Readonly<Record<Kind, Runner.Endpoint>> = {
  refresh: {
    name: "refresh grant (POST /token)",
    expectedStatus: 200,
    target: { requestsPerSecond: 1700, p99: 40 }
  },
  introspect: {
    name: "introspection (POST /introspect)",
    expectedStatus: 200,
    target: { requestsPerSecond: 4000 }
  },
  register: {
    name: "registration (POST /register)",
    expectedStatus: 201,
    target: { requestsPerSecond: 3000 }
  },
  discovery: { name: "discovery, no database (GET /.well-known/…)", expectedStatus: 200 }
}

/** Tokens of one grant minted through the ports, as a code exchange would store them. */
const mintGrant = (userId: UserId, withRefresh: boolean) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const tokens = yield* TokenStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const grantId = Option.some(GrantId.make(yield* secrets.uuid))
    const accessToken = yield* secrets.token("access")
    const access = new AccessToken.AccessToken({
      hash: yield* secrets.hash(accessToken),
      userId,
      clientId,
      grantId,
      familyId: Option.none(),
      scope: Option.none(),
      resource: Option.none(),
      issuedAt: now,
      expiresAt: AccessToken.expiryFor(now),
      revokedAt: Option.none()
    })
    if (!withRefresh) {
      yield* tokens.issue({ access, refresh: Option.none() })
      return Redacted.value(accessToken)
    }
    const refreshToken = yield* secrets.token("refresh")
    const family = RefreshTokenFamily.start(
      {
        id: FamilyId.make(yield* secrets.uuid),
        userId,
        clientId: Option.some(clientId),
        grantId,
        scope: Option.none(),
        resource: Option.none()
      },
      oauthPolicy,
      now
    )
    yield* tokens.issue({
      access: new AccessToken.AccessToken({ ...access, familyId: Option.some(family.id) }),
      refresh: Option.some({ family, tokenHash: yield* secrets.hash(refreshToken) })
    })
    return Redacted.value(refreshToken)
  })

interface Pools {
  readonly userId: UserId
  readonly accessTokens: ReadonlyArray<string>
  readonly postgres: Database.ServerInfo
}

/** Migrates, seeds the CLI client, creates a user and mints the introspection pool. */
const prepare = Effect.gen(function* () {
  yield* Migrations.run("oauth")
  yield* ManageClients.seedBuiltinCliClient(clientId)
  const secrets = yield* Secrets
  const now = new Date(yield* Clock.currentTimeMillis)
  const users = yield* UpstreamUsers
  const user = yield* users.upsertFromUpstream(
    {
      provider: "dev",
      subject: "bench-user",
      email: Option.some("bench@example.com"),
      emailVerified: true,
      data: { name: "Bench User" }
    },
    { userId: UserId.make(yield* secrets.uuid), identityId: IdentityId.make(yield* secrets.uuid) },
    now
  )
  const accessTokens = yield* Effect.forEach(
    Array.from({ length: settings.introspectionPool }),
    () => mintGrant(user.id, false),
    { concurrency: 32 }
  )
  return {
    userId: user.id,
    accessTokens,
    postgres: yield* Database.serverInfo
  } satisfies Pools
})

/**
 * Fresh refresh tokens for one refresh run: each is presented once, so every run needs its own.
 * Minted while the server idles, before the run is measured.
 */
const mintRefreshTokens = (userId: UserId, count: number) =>
  Effect.gen(function* () {
    const started = Date.now()
    const tokens = yield* Effect.forEach(Array.from({ length: count }), () => mintGrant(userId, true), {
      concurrency: 32
    })
    console.log(`  minted ${tokens.length} refresh tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return tokens
  })

// ---------------------------------------------------------------------------------------------
// Smoke test: one request of each kind, checked by body, before putting load on them
// ---------------------------------------------------------------------------------------------

const smoke = (baseUrl: string, spareRefreshToken: string, accessToken: string) =>
  Effect.tryPromise({
    try: async () => {
      const post = async (path: string, body: string, headers: Record<string, string>) => {
        const response = await fetch(`${baseUrl}${path}`, { method: "POST", body, headers })
        return { status: response.status, body: (await response.json()) as Record<string, unknown> }
      }
      const formHeaders = { "content-type": "application/x-www-form-urlencoded" }
      const refreshed = await post(
        "/token",
        new URLSearchParams({
          grant_type: "refresh_token",
          client_id: clientId,
          refresh_token: spareRefreshToken
        }).toString(),
        formHeaders
      )
      if (refreshed.status !== 200 || typeof refreshed.body.refresh_token !== "string") {
        throw new Error(`refresh: ${refreshed.status} ${JSON.stringify(refreshed.body)}`)
      }
      const introspected = await post("/introspect", new URLSearchParams({ token: accessToken }).toString(), {
        ...formHeaders,
        authorization: `Bearer ${introspectionToken}`
      })
      if (introspected.status !== 200 || introspected.body.active !== true) {
        throw new Error(`introspection: ${introspected.status} ${JSON.stringify(introspected.body)}`)
      }
      const registered = await post("/register", JSON.stringify(registration), {
        "content-type": "application/json"
      })
      if (registered.status !== 201 || typeof registered.body.client_id !== "string") {
        throw new Error(`registration: ${registered.status} ${JSON.stringify(registered.body)}`)
      }
    },
    catch: (error) => new BenchFailure({ message: `smoke test failed: ${String(error)}` })
  })

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/**
 * Memory targets of the server process (RSS): idle, after the whole bench, and no growth from
 * one set of loads to the next in the same process (a leak check). RSS moves by a few MiB
 * with the garbage collector's timing, hence the allowance.
 */
const memoryTargets: Report.MemoryTargets = { idleMiB: 110, afterMiB: 180, growthMiB: 10 }

const memoryMet = (results: ReadonlyArray<Runner.VariantResult>) =>
  results.flatMap((result) => Report.memoryRows(result, memoryTargets)).every(([, , , met]) => met !== false)

const runLines = (at: Date, machine: Machine.Machine, results: ReadonlyArray<Runner.VariantResult>) =>
  Results.linesOf({
    bench: "oauth",
    at,
    machine,
    server: [
      `\`node ${Runner.serverFlags.oauth.join(" ")} dist/bootstrap/cli.js oauth serve\`, its own process, upstream elsewhere`
    ],
    results,
    memoryTargets
  })

/** One load of a kind: one stream of BENCH_CONNECTIONS, its token pool minted now. */
const planOf = (
  kind: Kind,
  pools: Pools,
  mint: (count: number) => Effect.Effect<ReadonlyArray<string>, BenchFailure>
) =>
  Effect.gen(function* () {
    const scenario: Scenario =
      kind === "refresh"
        ? { kind, clientId, refreshTokens: yield* mint(settings.refreshPool) }
        : kind === "introspect"
          ? { kind, introspectionToken, accessTokens: pools.accessTokens }
          : kind === "register"
            ? { kind, metadata: registration }
            : { kind }
    const endpoint = endpoints[kind]
    return {
      name: endpoint.name,
      streams: [{ endpoint, connections: settings.connections, scenario }]
    } satisfies Runner.RunPlan
  })

const main = Effect.gen(function* () {
  const database = yield* Database.fresh(settings.adminUrl)
  console.log(`database ${database.name}`)
  const dataDir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const port = yield* Database.freePort
  const baseUrl = `http://127.0.0.1:${port}`
  const collector = yield* Collector.start
  const serverEnv: Record<string, string> = {
    SQL_URL: database.url,
    LATCHKEY_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    API_HOST: "127.0.0.1",
    PORT: String(port),
    BASE_URL: baseUrl,
    INTROSPECTION_TOKEN: introspectionToken,
    CLI_CLIENT_ID: clientId,
    REGISTER_RATE_LIMIT: "1000000000/hour",
    // A production upstream, never called by these loads: the server loads no development IdP.
    OAUTH2_PROVIDER: "google",
    OAUTH2_CLIENT_ID: "latchkey-bench",
    OAUTH2_CLIENT_SECRET: "never-used"
  }
  const config = yield* Effect.withConfigProvider(
    OAuthConfig.server,
    ConfigProvider.fromMap(new Map(Object.entries(serverEnv)))
  )
  // The bench's own connection to the database, through the ports, to prepare the data.
  const core = yield* Layer.build(OAuthLayers.core(config))
  const pools = yield* prepare.pipe(Effect.provide(core))
  const mint = (count: number) =>
    mintRefreshTokens(pools.userId, count).pipe(
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `minting refresh tokens: ${String(error)}` }))
    )
  const service: Runner.Service<Kind> = {
    service: "oauth",
    readyPath: "/.well-known/oauth-authorization-server",
    baseUrl,
    database: database.name,
    serverEnv,
    collector,
    smoke: Effect.flatMap(mint(1), ([spare]) => smoke(baseUrl, spare ?? "", pools.accessTokens[0] ?? "")),
    kinds: only === undefined ? allKinds : [only],
    plan: (kind) => planOf(kind, pools, mint)
  }
  const telemetryOn: Runner.Variant = {
    name: "Telemetry on: tracing and metrics exported over OTLP",
    env: {
      TRACING_ENABLED: "true",
      TRACING_EXPORTER: "opentelemetry",
      METRICS_ENABLED: "true",
      METRICS_EXPORTER: "opentelemetry",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url
    },
    sets: 1,
    telemetry: true
  }
  const telemetryOff: Runner.Variant = {
    name: "Telemetry off",
    env: {},
    sets: only === undefined ? 2 : 1,
    telemetry: false
  }
  const variants = only === undefined ? [telemetryOff, telemetryOn] : [telemetryOff]

  const results: Array<Runner.VariantResult> = []
  for (const variant of variants) {
    const profileDirectory =
      profiled === undefined ? undefined : mkdtempSync(join(os.tmpdir(), "latchkey-profile-"))
    results.push(yield* Effect.scoped(Runner.runVariant(variant, service, profileDirectory)))
    if (profiled !== undefined && profileDirectory !== undefined) {
      yield* Runner.keepProfile(profiled, profileDirectory).pipe(
        Effect.ensuring(Effect.sync(() => rmSync(profileDirectory, { recursive: true, force: true })))
      )
    }
  }

  const problems = Runner.problemsOfAll(results)
  if (problems.length > 0) {
    return yield* new BenchFailure({ message: `the run failed:\n  ${problems.join("\n  ")}` })
  }
  for (const result of results) {
    for (const [what, value, target, met] of Report.memoryRows(result, memoryTargets)) {
      if (met !== undefined)
        console.log(
          `  ${result.variant.name}: ${what}: ${Report.mebibytes(value)} MiB (${target}) ${met ? "met" : "MISSED"}`
        )
    }
  }
  if (!memoryMet(results)) console.log("memory targets: MISSED (recorded as such)")
  if (record) Results.record("oauth", runLines(new Date(), Machine.describe(pools.postgres), results))
})

Runner.runMain(main)
