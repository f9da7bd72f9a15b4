/**
 * `npm run bench`: the oauth service under load, on a real PostgreSQL.
 *
 * Starts the service in this process exactly as `latchkey oauth serve` does (OAuthServer.serve),
 * on a fresh database `latchkey_bench_<random>` on SQL_URL's server (dropped at the end), and
 * drives its endpoints with autocannon from a child process (bench/load.ts): the refresh grant,
 * introspection and dynamic registration, then the static discovery document as the floor of
 * the HTTP stack. Prints req/s, p50/p99 latency, non-2xx, errors and the CPU each process used;
 * exits 1 if any request errored or got an unexpected status; otherwise records the run in
 * docs/performance.md.
 *
 * Flags: --profile[=refresh|introspect|register|discovery] (that run only, default refresh, with
 * a CPU profile of this process — the server — during the measured run, written to
 * bench/profiles/ and summarised; docs untouched), --only=<kind> (that run only, unprofiled;
 * docs untouched), --no-write (docs untouched).
 * Environment: SQL_URL, BENCH_CONNECTIONS (32), BENCH_WARMUP (2 s), BENCH_DURATION (10 s),
 * BENCH_REFRESH_POOL (80000), BENCH_QUIET_WAIT (60 s: how long to wait for an idle machine).
 */
import { execFileSync, fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
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
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as ManageClients from "../application/oauth/ManageClients.js"
import { TokenStore } from "../application/oauth/ports/TokenStore.js"
import { UpstreamUsers } from "../application/oauth/ports/UpstreamUsers.js"
import { SecretHasher } from "../application/ports/SecretHasher.js"
import { TokenMint } from "../application/ports/TokenMint.js"
import * as OAuthConfig from "../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../bootstrap/oauth/OAuthLayers.js"
import * as OAuthServer from "../bootstrap/oauth/OAuthServer.js"
import { ClientId, FamilyId, GrantId, IdentityId, UserId } from "../domain/Ids.js"
import * as AccessToken from "../domain/oauth/AccessToken.js"
import { oauthPolicy } from "../domain/oauth/RefreshPolicy.js"
import * as RefreshTokenFamily from "../domain/RefreshTokenFamily.js"
import * as CpuProfile from "./cpuprofile.js"
import type { LoadMessage, LoadRequest, Scenario, Summary } from "./protocol.js"

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
  refreshPool: numberFromEnv("BENCH_REFRESH_POOL", 80_000),
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
  readonly refreshTokens: ReadonlyArray<string>
  readonly accessTokens: ReadonlyArray<string>
  /** For the smoke test before the load, outside the pool. */
  readonly spareRefreshToken: string
  readonly postgresVersion: string
  readonly postgresSettings: string
}

/** Migrates, seeds the CLI client, creates a user and mints the token pools. */
const prepare = (refreshPool: number) =>
  Effect.gen(function* () {
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
    const started = Date.now()
    const refreshTokens = yield* Effect.forEach(
      Array.from({ length: refreshPool }),
      () => mintGrant(user.id, true),
      {
        concurrency: 32
      }
    )
    const accessTokens = yield* Effect.forEach(
      Array.from({ length: settings.introspectionPool }),
      () => mintGrant(user.id, false),
      { concurrency: 32 }
    )
    const spareRefreshToken = yield* mintGrant(user.id, true)
    console.log(
      `minted ${refreshTokens.length} refresh and ${accessTokens.length} access tokens in ${(
        (Date.now() - started) / 1000
      ).toFixed(1)} s`
    )
    const sql = yield* SqlClient.SqlClient
    const [server] = yield* sql<{
      readonly version: string
      readonly synchronousCommit: string
      readonly sharedBuffers: string
    }>`SELECT version(), current_setting('synchronous_commit') AS synchronous_commit,
              current_setting('shared_buffers') AS shared_buffers`
    return {
      refreshTokens,
      accessTokens,
      spareRefreshToken,
      postgresVersion: server?.version ?? "unknown",
      postgresSettings:
        server === undefined
          ? "unknown"
          : `synchronous_commit=${server.synchronousCommit}, shared_buffers=${server.sharedBuffers}`
    } satisfies Pools
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
  readonly poolExhausted: boolean
  readonly loadCpuPercent: number
  readonly serverCpuPercent: number
  /** The kernel's share of it (system time: socket writes and reads, mostly). */
  readonly serverSystemCpuPercent: number
  readonly postgresCpuPercent: number | undefined
  /** Whatever else ran on the machine meanwhile: all busy CPU minus ours and PostgreSQL's. */
  readonly otherCpuPercent: number | undefined
  readonly profile: Option.Option<CpuProfile.CpuProfile>
}

/** Starts and stops the V8 profiler of this (the server's) process. */
const profiler = Effect.acquireRelease(
  Effect.promise(async () => {
    const session = new Session()
    session.connect()
    await session.post("Profiler.enable")
    return session
  }),
  (session) => Effect.sync(() => session.disconnect())
)

const loadScript = fileURLToPath(new URL("./load.js", import.meta.url))

/** Runs one scenario in a child load generator; measures this process's and PostgreSQL's CPU meanwhile. */
const runLoad = (url: string, database: string, scenario: Scenario, profile: boolean) =>
  Effect.gen(function* () {
    const session = profile ? Option.some(yield* profiler) : Option.none<Session>()
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
      let serverCpu = process.cpuUsage()
      let postgresCpu = postgresTicks(database)
      let machineCpu = machineCpuSeconds()
      let startedAt = process.hrtime.bigint()
      let profileStarted: Promise<unknown> = Promise.resolve()
      let settled = false
      let reported = false
      const fail = (message: string) => {
        if (settled) return
        settled = true
        resume(Effect.fail(new BenchFailure({ message })))
      }
      child.on("message", (message: LoadMessage) => {
        if (message.type === "measuring") {
          serverCpu = process.cpuUsage()
          postgresCpu = postgresTicks(database)
          machineCpu = machineCpuSeconds()
          startedAt = process.hrtime.bigint()
          if (Option.isSome(session)) profileStarted = session.value.post("Profiler.start")
          return
        }
        if (message.type === "failed") return fail(`load generator failed: ${message.message}`)
        reported = true
        const elapsedSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9
        const cpu = process.cpuUsage(serverCpu)
        const postgresUsed = postgresCpuBetween(postgresCpu, postgresTicks(database))
        const machineAfter = machineCpuSeconds()
        const serverCpuPercent = ((cpu.user + cpu.system) / 1e6 / elapsedSeconds) * 100
        const serverSystemCpuPercent = (cpu.system / 1e6 / elapsedSeconds) * 100
        const postgresCpuPercent =
          postgresUsed === undefined ? undefined : (postgresUsed / elapsedSeconds) * 100
        const otherCpuPercent =
          machineCpu === undefined || machineAfter === undefined
            ? undefined
            : Math.max(
                0,
                ((machineAfter - machineCpu) / elapsedSeconds) * 100 -
                  serverCpuPercent -
                  (postgresCpuPercent ?? 0) -
                  message.cpuPercent
              )
        const stopProfile = Option.match(session, {
          onNone: () => Promise.resolve(Option.none<CpuProfile.CpuProfile>()),
          onSome: (s) =>
            profileStarted
              .then(() => s.post("Profiler.stop"))
              .then(({ profile }) => Option.some(profile as CpuProfile.CpuProfile))
        })
        stopProfile.then(
          (profile) => {
            if (settled) return
            settled = true
            resume(
              Effect.succeed({
                kind: scenario.kind,
                warmup: message.warmup,
                measured: message.measured,
                poolTaken: message.poolTaken,
                poolExhausted: message.poolExhausted,
                loadCpuPercent: message.cpuPercent,
                serverCpuPercent,
                serverSystemCpuPercent,
                postgresCpuPercent,
                otherCpuPercent,
                profile
              })
            )
          },
          (error: unknown) => fail(`profiler: ${String(error)}`)
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
  if (outcome.poolExhausted) problems.push(`the refresh token pool (${settings.refreshPool}) ran dry`)
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

const smoke = (baseUrl: string, pools: Pools) =>
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
          refresh_token: pools.spareRefreshToken
        }).toString(),
        formHeaders
      )
      if (refreshed.status !== 200 || typeof refreshed.body.refresh_token !== "string") {
        throw new Error(`refresh: ${refreshed.status} ${JSON.stringify(refreshed.body)}`)
      }
      const introspected = await post(
        "/introspect",
        new URLSearchParams({ token: pools.accessTokens[0] ?? "" }).toString(),
        { ...formHeaders, authorization: `Bearer ${introspectionToken}` }
      )
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

/** Milliseconds of the server process's CPU time per completed request in the measured run. */
const serverCpuPerRequest = (outcome: Outcome) =>
  outcome.measured.requests === 0
    ? 0
    : ((outcome.serverCpuPercent / 100) * outcome.measured.seconds * 1000) / outcome.measured.requests

const printOutcome = (outcome: Outcome) => {
  const m = outcome.measured
  const endpoint = endpoints[outcome.kind]
  console.log(
    [
      `${endpoint.name}`,
      `  req/s (average) ${fixed(m.requestsPerSecond, 1)}   requests ${fixed(m.requests)} in ${m.seconds} s`,
      `  latency p50 ${m.p50} ms   p99 ${m.p99} ms   max ${m.max} ms`,
      `  non-2xx ${m.non2xx}   errors ${m.errors} (timeouts ${m.timeouts})   statuses ${JSON.stringify(m.statusCodes)}`,
      `  CPU (100% = one core): server ${percent(outcome.serverCpuPercent)} (kernel ${percent(outcome.serverSystemCpuPercent)}; ${fixed(serverCpuPerRequest(outcome), 2)} ms a request), PostgreSQL ${percent(outcome.postgresCpuPercent)}, load generator ${percent(outcome.loadCpuPercent)}, other processes ${percent(outcome.otherCpuPercent)}`,
      `  warm-up ${fixed(outcome.warmup.requestsPerSecond, 1)} req/s, non-2xx ${outcome.warmup.non2xx}, errors ${outcome.warmup.errors}`,
      `  target ${targetText(endpoint.target)}: ${metText(meetsTarget(outcome), "met", "MISSED")}`
    ].join("\n")
  )
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

const runSection = (at: Date, m: Machine, outcomes: ReadonlyArray<Outcome>) =>
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
    `| load | autocannon, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured, from a child process |`,
    "",
    "| endpoint | req/s | p50 ms | p99 ms | max ms | requests | non-2xx | errors | server CPU ms a request | CPU server / PostgreSQL / load / other | target | met |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ...outcomes.map((o) => {
      const s = o.measured
      const e = endpoints[o.kind]
      return `| ${e.name} | ${fixed(s.requestsPerSecond)} | ${s.p50} | ${s.p99} | ${s.max} | ${fixed(s.requests)} | ${s.non2xx} | ${s.errors} | ${fixed(serverCpuPerRequest(o), 2)} | ${percent(o.serverCpuPercent)} / ${percent(o.postgresCpuPercent)} / ${percent(o.loadCpuPercent)} / ${percent(o.otherCpuPercent)} | ${targetText(e.target)} | ${metText(meetsTarget(o), "yes", "**no**")} |`
    }),
    ...noisy(outcomes),
    ""
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

const writeProfile = (kind: Scenario["kind"], profile: CpuProfile.CpuProfile) => {
  const directory = fileURLToPath(new URL("../../bench/profiles/", import.meta.url))
  mkdirSync(directory, { recursive: true })
  const file = join(directory, `${kind}-${new Date().toISOString().replaceAll(":", "-")}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  return file
}

/**
 * The server's log, counted rather than printed and summed up after each run: autocannon drops
 * its connections mid-request at the end of every run, which must not bury the output. Lines
 * about interrupted requests are only counted; the first of every other kind is printed in full
 * at once.
 */
const serverLog = new Map<string, number>()
const countingLogger = Logger.make(({ logLevel, message, cause }) => {
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  const interrupted = !Cause.isEmpty(cause) && Cause.isInterruptedOnly(cause)
  const key = `${logLevel.label} "${text}"${interrupted ? " (interrupted: the client went away)" : ""}`
  const seen = serverLog.get(key) ?? 0
  serverLog.set(key, seen + 1)
  if (seen === 0 && !interrupted) {
    console.error(`  server log: ${key}${Cause.isEmpty(cause) ? "" : `\n${Cause.pretty(cause)}`}`)
  }
})

const printServerLog = () => {
  for (const [key, count] of serverLog) console.log(`  server logged ${count}× ${key}`)
  serverLog.clear()
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const main = Effect.gen(function* () {
  const database = yield* freshDatabase
  console.log(`database ${database.name}`)
  const dataDir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const port = yield* freePort
  const config = yield* Effect.withConfigProvider(
    OAuthConfig.server,
    ConfigProvider.fromMap(
      new Map([
        ["SQL_URL", database.url],
        ["LATCHKEY_DATA_DIR", dataDir],
        ["LOG_LEVEL", "warn"],
        ["API_HOST", "127.0.0.1"],
        ["PORT", String(port)],
        ["BASE_URL", `http://127.0.0.1:${port}`],
        ["INTROSPECTION_TOKEN", introspectionToken],
        ["CLI_CLIENT_ID", clientId],
        ["REGISTER_RATE_LIMIT", "1000000000/hour"]
      ])
    )
  )
  // Minting is the slow part of the setup: no pool when the refresh run is left out.
  const refreshPool = only === undefined || only === "refresh" ? settings.refreshPool : 0
  const pools = yield* Effect.scoped(prepare(refreshPool)).pipe(Effect.provide(OAuthLayers.core(config)))

  yield* Effect.forkScoped(Layer.launch(OAuthServer.serve(config)))
  const baseUrl = config.baseUrl
  yield* Effect.tryPromise(() => fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
    Effect.mapError(() => new BenchFailure({ message: "the server did not come up within 30 s" }))
  )
  console.log(`oauth service at ${baseUrl}`)
  yield* smoke(baseUrl, pools)

  const all: ReadonlyArray<Scenario> = [
    { kind: "refresh", clientId, refreshTokens: pools.refreshTokens },
    { kind: "introspect", introspectionToken, accessTokens: pools.accessTokens },
    { kind: "register", metadata: registration },
    { kind: "discovery" }
  ]
  const scenarios = only === undefined ? all : all.filter((scenario) => scenario.kind === only)
  const outcomes: Array<Outcome> = []
  for (const scenario of scenarios) {
    console.log(
      `\n${endpoints[scenario.kind].name}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured…`
    )
    yield* waitForQuiet
    const outcome = yield* runLoad(baseUrl, database.name, scenario, profiled !== undefined)
    printOutcome(outcome)
    printServerLog()
    if (outcome.kind === "refresh")
      console.log(`  refresh tokens used ${outcome.poolTaken} of ${refreshPool}`)
    outcomes.push(outcome)
    if (Option.isSome(outcome.profile)) {
      const file = writeProfile(outcome.kind, outcome.profile.value)
      console.log(`\nCPU profile of the server process during the measured run: ${file}\n`)
      console.log(CpuProfile.format(CpuProfile.summarise(outcome.profile.value, 20)))
    }
  }

  const problems = outcomes.flatMap((outcome) =>
    problemsOf(outcome).map((problem) => `${endpoints[outcome.kind].name}: ${problem}`)
  )
  if (problems.length > 0) {
    return yield* new BenchFailure({ message: `the run failed:\n  ${problems.join("\n  ")}` })
  }
  if (writeDocs) recordRun(runSection(new Date(), machine(pools), outcomes))
})

const program = Effect.scoped(main).pipe(
  Effect.ensuring(Effect.sync(printServerLog)),
  Effect.provide(Logger.replace(Logger.defaultLogger, countingLogger))
)

NodeRuntime.runMain(program, {
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
