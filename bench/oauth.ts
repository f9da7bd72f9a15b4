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
 * records the run in docs/performance.md.
 *
 * Flags: --profile[=refresh|introspect|register|discovery] (that run only, default refresh, the
 * server started with --cpu-prof; the profile, written to bench/profiles/ and summarised, covers
 * the server's whole life: start, warm-up and the measured run; docs untouched), --only=<kind>
 * (that run only, telemetry off, unprofiled; docs untouched), --no-write (docs untouched).
 * Environment: SQL_URL, BENCH_CONNECTIONS (32), BENCH_WARMUP (2 s), BENCH_DURATION (10 s),
 * BENCH_REFRESH_POOL (120000 tokens for each refresh run), BENCH_QUIET_WAIT (60 s: how long to
 * wait for an idle machine).
 */
import { execFileSync, fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as ManageClients from "../application/oauth/ManageClients.js"
import { TokenStore } from "../application/oauth/ports/TokenStore.js"
import { UpstreamUsers } from "../application/oauth/ports/UpstreamUsers.js"
import { SecretHasher } from "../application/ports/SecretHasher.js"
import { TokenMint } from "../application/ports/TokenMint.js"
import * as OAuthConfig from "../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../bootstrap/oauth/OAuthLayers.js"
import { ClientId, FamilyId, GrantId, IdentityId, UserId } from "../domain/Ids.js"
import * as AccessToken from "../domain/oauth/AccessToken.js"
import { oauthPolicy } from "../domain/oauth/RefreshPolicy.js"
import * as RefreshTokenFamily from "../domain/RefreshTokenFamily.js"
import * as Collector from "./Collector.js"
import * as CpuProfile from "./cpuprofile.js"
import type { LoadMessage, LoadRequest, Scenario, Summary } from "./protocol.js"
import * as ServerProcess from "./ServerProcess.js"

const args = new Set(process.argv.slice(2))
const kindOf = (flag: string, value: string): Scenario["kind"] => {
  if (value !== "refresh" && value !== "introspect" && value !== "register" && value !== "discovery") {
    throw new Error(`${flag}= takes refresh, introspect, register or discovery`)
  }
  return value
}
/**
 * `--profile` profiles the refresh run; `--profile=<kind>` another one. The last flag wins, so
 * `npm run bench:profile -- --profile=introspect` (the script passes `--profile`) works.
 */
const profileFlag = process.argv
  .slice(2)
  .filter((arg) => arg === "--profile" || arg.startsWith("--profile="))
  .at(-1)
const profiled: Scenario["kind"] | undefined =
  profileFlag === undefined
    ? undefined
    : profileFlag === "--profile"
      ? "refresh"
      : kindOf("--profile", profileFlag.slice("--profile=".length))
/** `--only=<kind>`: that run alone, unprofiled, docs untouched. */
const onlyFlag = process.argv.slice(2).find((arg) => arg.startsWith("--only="))
const only: Scenario["kind"] | undefined =
  profiled ?? (onlyFlag === undefined ? undefined : kindOf("--only", onlyFlag.slice("--only=".length)))
const writeDocs = only === undefined && !args.has("--no-write")

const numberFromEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

const settings = {
  adminUrl: process.env.SQL_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  connections: numberFromEnv("BENCH_CONNECTIONS", 32),
  warmupSeconds: numberFromEnv("BENCH_WARMUP", 2),
  durationSeconds: numberFromEnv("BENCH_DURATION", 10),
  refreshPool: numberFromEnv("BENCH_REFRESH_POOL", 120_000),
  quietWaitSeconds: numberFromEnv("BENCH_QUIET_WAIT", 60),
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

interface Target {
  readonly requestsPerSecond: number
  readonly p99?: number
}

interface Endpoint {
  readonly name: string
  readonly expectedStatus: number
  /** None: measured for reference only. */
  readonly target?: Target
}

const endpoints: Readonly<Record<Scenario["kind"], Endpoint>> = {
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

class BenchFailure extends Schema.TaggedError<BenchFailure>()("BenchFailure", { message: Schema.String }) {}

// ---------------------------------------------------------------------------------------------
// Database, server and token pools
// ---------------------------------------------------------------------------------------------

/** A database of its own on SQL_URL's server, dropped (with any leftover connection) at the end. */
const freshDatabase = Effect.gen(function* () {
  const name = `latchkey_bench_${randomBytes(6).toString("hex")}`
  const admin = yield* PgClient.make({ url: Redacted.make(settings.adminUrl), maxConnections: 1 })
  yield* admin.unsafe(`CREATE DATABASE ${name}`)
  yield* Effect.addFinalizer(() =>
    admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(
      Effect.tap(() => Effect.sync(() => console.log(`dropped database ${name}`))),
      Effect.orDie
    )
  )
  const url = new URL(settings.adminUrl)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}).pipe(Effect.provide(Reactivity.layer))

const freePort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** Tokens of one grant minted through the ports, as a code exchange would store them. */
const mintGrant = (userId: UserId, withRefresh: boolean) =>
  Effect.gen(function* () {
    const mint = yield* TokenMint
    const hasher = yield* SecretHasher
    const tokens = yield* TokenStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const grantId = Option.some(GrantId.make(yield* mint.uuid))
    const accessToken = yield* mint.token("access")
    const access = new AccessToken.AccessToken({
      hash: yield* hasher.hash(accessToken),
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
    const refreshToken = yield* mint.token("refresh")
    const family = RefreshTokenFamily.start(
      {
        id: FamilyId.make(yield* mint.uuid),
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
      refresh: Option.some({ family, tokenHash: yield* hasher.hash(refreshToken) })
    })
    return Redacted.value(refreshToken)
  })

interface Pools {
  readonly userId: UserId
  readonly accessTokens: ReadonlyArray<string>
  readonly postgresVersion: string
  readonly postgresSettings: string
}

/** Migrates, seeds the CLI client, creates a user and mints the introspection pool. */
const prepare = Effect.gen(function* () {
  yield* Migrations.run("oauth")
  yield* ManageClients.seedBuiltinCliClient(clientId)
  const mint = yield* TokenMint
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
    { userId: UserId.make(yield* mint.uuid), identityId: IdentityId.make(yield* mint.uuid) },
    now
  )
  const accessTokens = yield* Effect.forEach(
    Array.from({ length: settings.introspectionPool }),
    () => mintGrant(user.id, false),
    { concurrency: 32 }
  )
  const sql = yield* SqlClient.SqlClient
  const [server] = yield* sql<{
    readonly version: string
    readonly synchronousCommit: string
    readonly sharedBuffers: string
  }>`SELECT version(), current_setting('synchronous_commit') AS synchronous_commit,
            current_setting('shared_buffers') AS shared_buffers`
  return {
    userId: user.id,
    accessTokens,
    postgresVersion: server?.version ?? "unknown",
    postgresSettings:
      server === undefined
        ? "unknown"
        : `synchronous_commit=${server.synchronousCommit}, shared_buffers=${server.sharedBuffers}`
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
// Load runs
// ---------------------------------------------------------------------------------------------

/**
 * CPU ticks of the PostgreSQL processes that work for this run, by pid: the backends connected
 * to our database and the server's own processes (postmaster, WAL writer, checkpointer…), not
 * the backends of other databases. From /proc; none when PostgreSQL runs elsewhere.
 */
const postgresTicks = (database: string): Map<string, number> | undefined => {
  try {
    const ticks = new Map<string, number>()
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      let stat: string
      let title: string
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        title = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      } catch {
        continue
      }
      const close = stat.lastIndexOf(")")
      if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue
      // A client backend's title is "postgres: <cluster>: <user> <database> <host>(<port>) <state>".
      const clientBackend = /\(\d+\)/.test(title)
      if (clientBackend && !title.includes(` ${database} `)) continue
      const fields = stat.slice(close + 2).split(" ")
      // utime and stime: fields 14 and 15 of /proc/<pid>/stat, counted here from field 3, in
      // clock ticks of 1/100 s (USER_HZ on Linux).
      ticks.set(pid, Number(fields[11]) + Number(fields[12]))
    }
    return ticks.size === 0 ? undefined : ticks
  } catch {
    return undefined
  }
}

/** CPU seconds used between two readings; a process that exited meanwhile is lost (undercount). */
const postgresCpuBetween = (
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined
) => {
  if (before === undefined || after === undefined) return undefined
  let ticks = 0
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0)
  return ticks / 100
}

/** Busy CPU seconds of the whole machine, all cores, from /proc/stat (none off Linux). */
const machineCpuSeconds = (): number | undefined => {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? ""
    const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .map(Number)
    return (user + nice + system + irq + softirq + steal) / 100
  } catch {
    return undefined
  }
}

/**
 * Other work on the machine skews every figure (the server, PostgreSQL and the load generator
 * share the cores). Waits until the machine is idle but for us — under a quarter of one core
 * busy, twice in a row — for at most BENCH_QUIET_WAIT seconds, then goes on regardless.
 */
const waitForQuiet = Effect.gen(function* () {
  const limit = settings.quietWaitSeconds
  let quiet = 0
  for (let waited = 0; waited < limit; waited++) {
    const before = machineCpuSeconds()
    yield* Effect.sleep(Duration.seconds(1))
    const after = machineCpuSeconds()
    if (before === undefined || after === undefined) return
    quiet = after - before < 0.25 ? quiet + 1 : 0
    if (quiet >= 2) return
    if (waited === 2) console.log(`  waiting up to ${limit} s for other processes to leave the CPU…`)
  }
  console.log("  the machine did not quieten down: figures below include other processes' load")
})

interface Outcome {
  readonly kind: Scenario["kind"]
  readonly warmup: Summary
  readonly measured: Summary
  readonly poolTaken: number
  readonly poolSize: number
  readonly poolExhausted: boolean
  readonly loadCpuPercent: number
  readonly serverCpuPercent: number | undefined
  /** The kernel's share of it (system time: socket writes and reads, mostly). */
  readonly serverSystemCpuPercent: number | undefined
  readonly postgresCpuPercent: number | undefined
  /** Whatever else ran on the machine meanwhile: all busy CPU minus ours and PostgreSQL's. */
  readonly otherCpuPercent: number | undefined
  /** The server's resident memory once the load stopped, MiB. */
  readonly rssAfter: number | undefined
}

const loadScript = fileURLToPath(new URL("./load.js", import.meta.url))

/** Runs one scenario in a child load generator; measures the server's and PostgreSQL's CPU meanwhile. */
const runLoad = (url: string, database: string, scenario: Scenario, server: ServerProcess.ServerProcess) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => fork(loadScript, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })),
      (child) => Effect.sync(() => child.exitCode === null && child.kill())
    )
    const request: LoadRequest = {
      url,
      connections: settings.connections,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      scenario
    }
    return yield* Effect.async<Outcome, BenchFailure>((resume) => {
      let serverCpu = ServerProcess.cpuTime(server.pid)
      let postgresCpu = postgresTicks(database)
      let machineCpu = machineCpuSeconds()
      let startedAt = process.hrtime.bigint()
      let settled = false
      let reported = false
      const fail = (message: string) => {
        if (settled) return
        settled = true
        resume(Effect.fail(new BenchFailure({ message })))
      }
      child.on("message", (message: LoadMessage) => {
        if (message.type === "measuring") {
          serverCpu = ServerProcess.cpuTime(server.pid)
          postgresCpu = postgresTicks(database)
          machineCpu = machineCpuSeconds()
          startedAt = process.hrtime.bigint()
          return
        }
        if (message.type === "failed") return fail(`load generator failed: ${message.message}`)
        reported = true
        const elapsedSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9
        const serverAfter = ServerProcess.cpuTime(server.pid)
        const postgresUsed = postgresCpuBetween(postgresCpu, postgresTicks(database))
        const machineAfter = machineCpuSeconds()
        const serverCpuPercent =
          serverCpu === undefined || serverAfter === undefined
            ? undefined
            : ((serverAfter.user + serverAfter.system - serverCpu.user - serverCpu.system) / elapsedSeconds) *
              100
        const serverSystemCpuPercent =
          serverCpu === undefined || serverAfter === undefined
            ? undefined
            : ((serverAfter.system - serverCpu.system) / elapsedSeconds) * 100
        const postgresCpuPercent =
          postgresUsed === undefined ? undefined : (postgresUsed / elapsedSeconds) * 100
        const otherCpuPercent =
          machineCpu === undefined || machineAfter === undefined
            ? undefined
            : Math.max(
                0,
                ((machineAfter - machineCpu) / elapsedSeconds) * 100 -
                  (serverCpuPercent ?? 0) -
                  (postgresCpuPercent ?? 0) -
                  message.cpuPercent
              )
        settled = true
        resume(
          Effect.succeed({
            kind: scenario.kind,
            warmup: message.warmup,
            measured: message.measured,
            poolTaken: message.poolTaken,
            poolSize: scenario.kind === "refresh" ? scenario.refreshTokens.length : 0,
            poolExhausted: message.poolExhausted,
            loadCpuPercent: message.cpuPercent,
            serverCpuPercent,
            serverSystemCpuPercent,
            postgresCpuPercent,
            otherCpuPercent,
            rssAfter: ServerProcess.residentMiB(server.pid)
          })
        )
      })
      child.on("exit", (code) => {
        if (!reported) fail(`load generator exited (${code}) before reporting`)
      })
      child.on("error", (error) => fail(`load generator: ${error.message}`))
      child.send(request)
    })
  }).pipe(Effect.scoped)

/** What is wrong with a run: errors, timeouts, statuses other than the expected one. */
const problemsOf = (outcome: Outcome): ReadonlyArray<string> => {
  const expected = String(endpoints[outcome.kind].expectedStatus)
  const problems: Array<string> = []
  for (const [phase, summary] of [
    ["warm-up", outcome.warmup],
    ["measured", outcome.measured]
  ] as const) {
    if (summary.errors > 0) problems.push(`${phase}: ${summary.errors} errors (${summary.timeouts} timeouts)`)
    const unexpected = Object.entries(summary.statusCodes).filter(
      ([code, count]) => code !== expected && count > 0
    )
    if (unexpected.length > 0) {
      problems.push(
        `${phase}: unexpected statuses ${unexpected.map(([code, n]) => `${code}×${n}`).join(", ")}`
      )
    }
    if (summary.requests === 0) problems.push(`${phase}: no request completed`)
  }
  if (outcome.poolExhausted) problems.push(`the refresh token pool (${outcome.poolSize}) ran dry`)
  return problems
}

/** Whether the measured run meets the endpoint's target; none for a reference measurement. */
const meetsTarget = (outcome: Outcome): boolean | undefined => {
  const target = endpoints[outcome.kind].target
  if (target === undefined) return undefined
  return (
    outcome.measured.requestsPerSecond >= target.requestsPerSecond &&
    (target.p99 === undefined || outcome.measured.p99 <= target.p99)
  )
}

const targetText = (target: Target | undefined) =>
  target === undefined
    ? "none (reference)"
    : `≥ ${target.requestsPerSecond.toLocaleString("en-US")} req/s${target.p99 === undefined ? "" : `, p99 ≤ ${target.p99} ms`}`

const metText = (met: boolean | undefined, yes: string, no: string) =>
  met === undefined ? "—" : met ? yes : no

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
// Report
// ---------------------------------------------------------------------------------------------

const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
const percent = (value: number | undefined) => (value === undefined ? "n/a" : `${fixed(value)}%`)
const mebibytes = (value: number | undefined) => (value === undefined ? "n/a" : fixed(value, 1))

/** Milliseconds of the server process's CPU time per completed request in the measured run. */
const serverCpuPerRequest = (outcome: Outcome) =>
  outcome.measured.requests === 0 || outcome.serverCpuPercent === undefined
    ? undefined
    : ((outcome.serverCpuPercent / 100) * outcome.measured.seconds * 1000) / outcome.measured.requests

const perRequestText = (outcome: Outcome) => {
  const value = serverCpuPerRequest(outcome)
  return value === undefined ? "n/a" : fixed(value, 2)
}

const printOutcome = (outcome: Outcome) => {
  const m = outcome.measured
  const endpoint = endpoints[outcome.kind]
  console.log(
    [
      `${endpoint.name}`,
      `  req/s (average) ${fixed(m.requestsPerSecond, 1)}   requests ${fixed(m.requests)} in ${m.seconds} s`,
      `  latency p50 ${m.p50} ms   p99 ${m.p99} ms   max ${m.max} ms`,
      `  non-2xx ${m.non2xx}   errors ${m.errors} (timeouts ${m.timeouts})   statuses ${JSON.stringify(m.statusCodes)}`,
      `  CPU (100% = one core): server ${percent(outcome.serverCpuPercent)} (kernel ${percent(outcome.serverSystemCpuPercent)}; ${perRequestText(outcome)} ms a request), PostgreSQL ${percent(outcome.postgresCpuPercent)}, load generator ${percent(outcome.loadCpuPercent)}, other processes ${percent(outcome.otherCpuPercent)}`,
      `  server memory after the load ${mebibytes(outcome.rssAfter)} MiB`,
      `  warm-up ${fixed(outcome.warmup.requestsPerSecond, 1)} req/s, non-2xx ${outcome.warmup.non2xx}, errors ${outcome.warmup.errors}`,
      `  target ${targetText(endpoint.target)}: ${metText(meetsTarget(outcome), "met", "MISSED")}`
    ].join("\n")
  )
  if (outcome.kind === "refresh")
    console.log(`  refresh tokens used ${outcome.poolTaken} of ${outcome.poolSize}`)
}

const printServerLog = (server: ServerProcess.ServerProcess) => {
  for (const [key, count] of server.takeLog()) console.log(`  server logged ${count}× ${key}`)
}

interface Machine {
  readonly cpu: string
  readonly cores: number
  readonly memory: string
  readonly node: string
  readonly postgres: string
  readonly postgresSettings: string
  readonly commit: string
}

/** The commit measured, marked when the working tree differs from it (untracked files aside). */
const commit = (): string => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    const changed = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8"
    }).trim()
    return changed === "" ? head : `${head} with uncommitted changes`
  } catch {
    return "unknown"
  }
}

const machine = (pools: Pools): Machine => ({
  cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  cores: os.cpus().length,
  memory: `${fixed(os.totalmem() / 2 ** 30, 1)} GiB`,
  node: process.version,
  postgres: pools.postgresVersion,
  postgresSettings: pools.postgresSettings,
  commit: commit()
})

/**
 * Memory targets of the server process (RSS): idle, after the whole bench, and no growth from
 * one set of loads to the next in the same process (a leak check). RSS moves by a few MiB
 * with the garbage collector's timing, hence the allowance.
 */
const memoryTargets = { idleMiB: 110, afterMiB: 180, growthMiB: 10 } as const

/** V8 flags the server runs with, as docs/operations.md recommends (Memory). */
const serverFlags = ["--max-semi-space-size=4"]

interface Variant {
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  /** Sets of the loads, one after the other, in one server process. */
  readonly sets: number
  readonly telemetry: boolean
}

interface VariantResult {
  readonly variant: Variant
  readonly idle: number | undefined
  readonly sets: ReadonlyArray<ReadonlyArray<Outcome>>
  readonly collected: Readonly<Record<string, Collector.Received>> | undefined
}

const endOf = (set: ReadonlyArray<Outcome> | undefined) => set?.at(-1)?.rssAfter

/** The memory verdicts of a run with telemetry off: [what, MiB, target, met]. */
const memoryRows = (result: VariantResult) => {
  const rows: Array<readonly [string, number | undefined, string, boolean | undefined]> = [
    ["idle, after start and one request of each kind", result.idle, `≤ ${memoryTargets.idleMiB}`, undefined]
  ]
  result.sets.forEach((set, index) => {
    for (const outcome of set) {
      rows.push([`after ${endpoints[outcome.kind].name}, set ${index + 1}`, outcome.rssAfter, "", undefined])
    }
  })
  const first = endOf(result.sets[0])
  const last = endOf(result.sets.at(-1))
  const checked = !result.variant.telemetry
  const verdicts = rows.map(([what, value, target], index) => {
    if (!checked) return [what, value, "", undefined] as const
    if (index === 0)
      return [what, value, target, value === undefined ? undefined : value <= memoryTargets.idleMiB] as const
    if (index === rows.length - 1) {
      return [
        what,
        value,
        `≤ ${memoryTargets.afterMiB}`,
        value === undefined ? undefined : value <= memoryTargets.afterMiB
      ] as const
    }
    return [what, value, "", undefined] as const
  })
  if (result.sets.length > 1 && first !== undefined && last !== undefined) {
    return [
      ...verdicts,
      [
        `growth from the end of set 1 to the end of set ${result.sets.length}`,
        last - first,
        `≤ ${memoryTargets.growthMiB}`,
        checked ? last - first <= memoryTargets.growthMiB : undefined
      ] as const
    ]
  }
  return verdicts
}

const memoryMet = (results: ReadonlyArray<VariantResult>) =>
  results.flatMap(memoryRows).every(([, , , met]) => met !== false)

/** A warning under a run that shared the machine with other busy processes. */
const noisy = (outcomes: ReadonlyArray<Outcome>): ReadonlyArray<string> => {
  const worst = Math.max(...outcomes.map((o) => o.otherCpuPercent ?? 0))
  return worst < 25
    ? []
    : [
        "",
        `Other processes used up to ${fixed(worst)}% of a core while this run measured: its figures are depressed.`
      ]
}

const collectedText = (collected: Readonly<Record<string, Collector.Received>> | undefined) => {
  if (collected === undefined) return []
  const parts = Object.entries(collected).map(
    ([path, received]) => `${path}: ${fixed(received.requests)} exports, ${fixed(received.bytes / 1024)} KiB`
  )
  return ["", `The collector stand-in received ${parts.length === 0 ? "nothing" : parts.join("; ")}.`]
}

const variantSection = (result: VariantResult) => {
  const outcomes = result.sets.flat()
  return [
    `#### ${result.variant.name}`,
    "",
    "| set | endpoint | req/s | p50 ms | p99 ms | max ms | requests | non-2xx | errors | server CPU ms a request | CPU server / PostgreSQL / load / other | server RSS after, MiB | target | met |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |",
    ...result.sets.flatMap((set, index) =>
      set.map((o) => {
        const s = o.measured
        const e = endpoints[o.kind]
        return `| ${index + 1} | ${e.name} | ${fixed(s.requestsPerSecond)} | ${s.p50} | ${s.p99} | ${s.max} | ${fixed(s.requests)} | ${s.non2xx} | ${s.errors} | ${perRequestText(o)} | ${percent(o.serverCpuPercent)} / ${percent(o.postgresCpuPercent)} / ${percent(o.loadCpuPercent)} / ${percent(o.otherCpuPercent)} | ${mebibytes(o.rssAfter)} | ${targetText(e.target)} | ${metText(meetsTarget(o), "yes", "**no**")} |`
      })
    ),
    ...noisy(outcomes),
    ...collectedText(result.collected),
    "",
    "| server memory (RSS) | MiB | target | met |",
    "| --- | ---: | --- | --- |",
    ...memoryRows(result).map(
      ([what, value, target, met]) =>
        `| ${what} | ${mebibytes(value)} | ${target === "" ? "—" : target} | ${metText(met, "yes", "**no**")} |`
    ),
    ""
  ]
}

const runSection = (at: Date, m: Machine, results: ReadonlyArray<VariantResult>) =>
  [
    `### Run of ${at.toISOString().replace("T", " ").slice(0, 16)} UTC`,
    "",
    "| | |",
    "| --- | --- |",
    `| date | ${at.toISOString()} |`,
    `| machine | ${m.cpu} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memory} |`,
    `| Node | ${m.node} |`,
    `| PostgreSQL | ${m.postgres} (${m.postgresSettings}) |`,
    `| commit | ${m.commit} |`,
    `| server | \`node ${serverFlags.join(" ")} dist/bootstrap/cli.js oauth serve\`, its own process, upstream elsewhere |`,
    `| load | autocannon, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured, from a child process |`,
    "",
    ...results.flatMap(variantSection)
  ].join("\n")

const docsPath = fileURLToPath(new URL("../../docs/performance.md", import.meta.url))
const startMarker = "<!-- bench:runs:start (written by npm run bench, newest first) -->"
const endMarker = "<!-- bench:runs:end -->"

/** Adds the run at the top of the generated block of docs/performance.md; the prose stays as it is. */
const recordRun = (section: string) => {
  let text: string
  try {
    text = readFileSync(docsPath, "utf8")
  } catch {
    text = `# Performance\n\n\`npm run bench\` (see bench/oauth.ts).\n\n## Runs\n\n${startMarker}\n${endMarker}\n`
  }
  const start = text.indexOf(startMarker)
  const end = text.indexOf(endMarker)
  if (start < 0 || end < start) throw new Error(`${docsPath} lacks the markers ${startMarker} … ${endMarker}`)
  const head = text.slice(0, start + startMarker.length)
  const runs = text.slice(start + startMarker.length, end).trim()
  writeFileSync(docsPath, `${head}\n\n${section}\n${runs === "" ? "" : `${runs}\n\n`}${text.slice(end)}`)
  console.log(`recorded the run in ${docsPath}`)
}

/** The profile `--cpu-prof` wrote when the server exited, kept under bench/profiles/. */
const keepProfile = (kind: Scenario["kind"], directory: string) => {
  const written = readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"))
  const name = written[0]
  if (name === undefined) return undefined
  const text = readFileSync(join(directory, name), "utf8")
  const target = fileURLToPath(new URL("../../bench/profiles/", import.meta.url))
  mkdirSync(target, { recursive: true })
  const file = join(target, `${kind}-${new Date().toISOString().replaceAll(":", "-")}.cpuprofile`)
  writeFileSync(file, text)
  const profile: CpuProfile.CpuProfile = JSON.parse(text)
  return { file, profile }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

interface Context {
  readonly baseUrl: string
  readonly database: string
  readonly serverEnv: Readonly<Record<string, string>>
  readonly pools: Pools
  readonly mint: (count: number) => Effect.Effect<ReadonlyArray<string>, BenchFailure>
  readonly collector: Collector.Collector
}

const scenarioOf = (kind: Scenario["kind"], context: Context) =>
  Effect.gen(function* () {
    switch (kind) {
      case "refresh":
        return { kind, clientId, refreshTokens: yield* context.mint(settings.refreshPool) } satisfies Scenario
      case "introspect":
        return { kind, introspectionToken, accessTokens: context.pools.accessTokens } satisfies Scenario
      case "register":
        return { kind, metadata: registration } satisfies Scenario
      case "discovery":
        return { kind } satisfies Scenario
    }
  })

const allKinds: ReadonlyArray<Scenario["kind"]> = ["refresh", "introspect", "register", "discovery"]

/** One server process: started, smoke-tested, measured idle, then the loads, set after set. */
const runVariant = (variant: Variant, context: Context, profileDirectory: string | undefined) =>
  Effect.gen(function* () {
    console.log(`\n== ${variant.name} ==`)
    const server = yield* ServerProcess.start({
      nodeFlags: [
        ...serverFlags,
        ...(profileDirectory === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDirectory}`])
      ],
      env: { ...context.serverEnv, ...variant.env },
      baseUrl: context.baseUrl
    })
    console.log(`oauth service at ${context.baseUrl} (pid ${server.pid})`)
    const [spare] = yield* context.mint(1)
    yield* smoke(context.baseUrl, spare ?? "", context.pools.accessTokens[0] ?? "")
    // Idle: started, every endpoint's code loaded by the smoke test, the garbage settled.
    yield* Effect.sleep(Duration.seconds(2))
    const idle = ServerProcess.residentMiB(server.pid)
    console.log(`  server memory idle ${mebibytes(idle)} MiB`)
    const kinds = only === undefined ? allKinds : [only]
    const sets: Array<ReadonlyArray<Outcome>> = []
    for (let set = 1; set <= variant.sets; set++) {
      const outcomes: Array<Outcome> = []
      for (const kind of kinds) {
        const scenario = yield* scenarioOf(kind, context)
        console.log(
          `\n${endpoints[kind].name}, set ${set} of ${variant.sets}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured…`
        )
        yield* waitForQuiet
        const outcome = yield* runLoad(context.baseUrl, context.database, scenario, server)
        printOutcome(outcome)
        printServerLog(server)
        outcomes.push(outcome)
      }
      sets.push(outcomes)
    }
    return {
      variant,
      idle,
      sets,
      collected: variant.telemetry ? context.collector.received() : undefined
    } satisfies VariantResult
  })

const main = Effect.gen(function* () {
  const database = yield* freshDatabase
  console.log(`database ${database.name}`)
  const dataDir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const port = yield* freePort
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
  const context: Context = {
    baseUrl,
    database: database.name,
    serverEnv,
    pools,
    collector,
    mint: (count) =>
      mintRefreshTokens(pools.userId, count).pipe(
        Effect.provide(core),
        Effect.mapError((error) => new BenchFailure({ message: `minting refresh tokens: ${String(error)}` }))
      )
  }
  const telemetryOn: Variant = {
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
  const telemetryOff: Variant = {
    name: "Telemetry off",
    env: {},
    sets: only === undefined ? 2 : 1,
    telemetry: false
  }
  const variants = only === undefined ? [telemetryOff, telemetryOn] : [telemetryOff]

  const results: Array<VariantResult> = []
  for (const variant of variants) {
    const profileDirectory =
      profiled === undefined ? undefined : mkdtempSync(join(os.tmpdir(), "latchkey-profile-"))
    results.push(yield* Effect.scoped(runVariant(variant, context, profileDirectory)))
    if (profiled !== undefined && profileDirectory !== undefined) {
      const kept = keepProfile(profiled, profileDirectory)
      rmSync(profileDirectory, { recursive: true, force: true })
      if (kept === undefined) return yield* new BenchFailure({ message: "the server wrote no CPU profile" })
      console.log(`\nCPU profile of the server process (start, warm-up and measured run): ${kept.file}\n`)
      console.log(CpuProfile.format(CpuProfile.summarise(kept.profile, 20)))
    }
  }

  const problems = results.flatMap((result) =>
    result.sets
      .flat()
      .flatMap((outcome) =>
        problemsOf(outcome).map(
          (problem) => `${result.variant.name}: ${endpoints[outcome.kind].name}: ${problem}`
        )
      )
  )
  if (problems.length > 0) {
    return yield* new BenchFailure({ message: `the run failed:\n  ${problems.join("\n  ")}` })
  }
  for (const result of results) {
    for (const [what, value, target, met] of memoryRows(result)) {
      if (met !== undefined)
        console.log(
          `  ${result.variant.name}: ${what}: ${mebibytes(value)} MiB (${target}) ${met ? "met" : "MISSED"}`
        )
    }
  }
  if (!memoryMet(results)) console.log("memory targets: MISSED (recorded as such)")
  if (writeDocs) recordRun(runSection(new Date(), machine(pools), results))
})

NodeRuntime.runMain(Effect.scoped(main), {
  teardown: (exit) => {
    if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
      const failure = Cause.failureOption(exit.cause)
      console.error(
        Option.isSome(failure) && failure.value instanceof BenchFailure
          ? failure.value.message
          : Cause.pretty(exit.cause)
      )
      process.exit(1)
    }
    process.exit(Exit.isSuccess(exit) ? 0 : 130)
  },
  disableErrorReporting: true,
  disablePrettyLogger: true
})
