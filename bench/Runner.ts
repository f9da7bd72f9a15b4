/**
 * What every bench does with its server: start it as its own process, smoke-test it, measure
 * it idle, then drive it run after run from a child load generator (bench/load.ts) while the
 * CPU of every process is read; and what counts as a failed run.
 */
import { fork } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Collector from "./Collector.js"
import * as CpuProfile from "./cpuprofile.js"
import * as Flags from "./Flags.js"
import * as Machine from "./Machine.js"
import type { LoadMessage, LoadRequest, Scenario, Summary } from "./protocol.js"
import * as Report from "./Report.js"
import * as ServerProcess from "./ServerProcess.js"

export class BenchFailure extends Schema.TaggedError<BenchFailure>()("BenchFailure", {
  message: Schema.String
}) {}

/**
 * V8 flags each service runs with, as docs/operations.md recommends (Memory): the oauth service
 * with 4 MiB semi-spaces, for its memory target at no cost in throughput; the auth service with
 * V8's default 16 MiB, said explicitly, since its sign-in paths allocate enough per request that
 * smaller ones cost a sixth of their throughput in collections (docs/performance-history.md).
 */
export const serverFlags = {
  oauth: ["--max-semi-space-size=4"],
  auth: ["--max-semi-space-size=16"]
} as const

export interface Target {
  /** None: latency only (the `GET /user` side of the mixed run). */
  readonly requestsPerSecond?: number
  readonly p99?: number
}

export interface Endpoint {
  readonly name: string
  readonly expectedStatus: number
  /** None: measured for reference only. */
  readonly target?: Target
}

/** One autocannon instance of a run: what it calls, how, and with how many connections. */
export interface StreamPlan {
  readonly endpoint: Endpoint
  readonly connections: number
  readonly scenario: Scenario
}

/** One load: its streams run at the same time; most runs have one. */
export interface RunPlan {
  readonly name: string
  readonly streams: ReadonlyArray<StreamPlan>
}

export interface StreamOutcome {
  readonly endpoint: Endpoint
  readonly connections: number
  readonly warmup: Summary
  readonly measured: Summary
  readonly poolTaken: number
  readonly poolSize: number
  readonly poolExhausted: boolean
}

export interface Outcome {
  /** The bench's name for the load (`--only=<kind>`). */
  readonly kind: string
  readonly name: string
  readonly streams: ReadonlyArray<StreamOutcome>
  readonly loadCpuPercent: number
  /** The server's CPU while measuring, in percent of one core, all streams together. */
  readonly serverCpuPercent: number | undefined
  /** The kernel's share of it (system time: socket writes and reads, mostly). */
  readonly serverSystemCpuPercent: number | undefined
  readonly postgresCpuPercent: number | undefined
  /** Whatever else ran on the machine meanwhile: all busy CPU minus ours and PostgreSQL's. */
  readonly otherCpuPercent: number | undefined
  /** The server's resident memory once the load stopped, MiB. */
  readonly rssAfter: number | undefined
  /** What the bench checked once the load had stopped (`Service.afterLoad`); none for most loads. */
  readonly settled?: Settled
}

/**
 * What settled after a load, beside its answers: the mail its requests queued, delivered, say.
 * Its notes go into the record under the run's table; a problem fails the bench.
 */
export interface Settled {
  readonly notes: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
}

/** The size of the pool a scenario presents one token at a time; 0 for the others. */
const poolSizeOf = (scenario: Scenario) => {
  switch (scenario.kind) {
    case "refresh":
    case "auth-refresh":
      return scenario.refreshTokens.length
    case "auth-verify":
      return scenario.codes.length
    case "auth-factor-verify":
      return scenario.challenges.length
    default:
      return 0
  }
}

const loadScript = fileURLToPath(new URL("./load.js", import.meta.url))

/** Runs one load in a child load generator; measures the server's and PostgreSQL's CPU meanwhile. */
export const runLoad = (
  url: string,
  database: string,
  kind: string,
  plan: RunPlan,
  server: ServerProcess.ServerProcess
) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => fork(loadScript, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })),
      (child) => Effect.sync(() => child.exitCode === null && child.kill())
    )
    const request: LoadRequest = {
      url,
      warmupSeconds: Flags.common.warmupSeconds,
      durationSeconds: Flags.common.durationSeconds,
      streams: plan.streams.map(({ connections, scenario }) => ({ connections, scenario }))
    }
    return yield* Effect.async<Outcome, BenchFailure>((resume) => {
      let serverCpu = ServerProcess.cpuTime(server.pid)
      let postgresCpu = Machine.postgresTicks(database)
      let machineCpu = Machine.machineCpuSeconds()
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
          postgresCpu = Machine.postgresTicks(database)
          machineCpu = Machine.machineCpuSeconds()
          startedAt = process.hrtime.bigint()
          return
        }
        if (message.type === "failed") return fail(`load generator failed: ${message.message}`)
        reported = true
        const elapsedSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9
        const serverAfter = ServerProcess.cpuTime(server.pid)
        const postgresUsed = Machine.postgresCpuBetween(postgresCpu, Machine.postgresTicks(database))
        const machineAfter = Machine.machineCpuSeconds()
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
        if (message.streams.length !== plan.streams.length) {
          return fail(`load generator reported ${message.streams.length} of ${plan.streams.length} streams`)
        }
        const streams = plan.streams.flatMap((stream, index): ReadonlyArray<StreamOutcome> => {
          const result = message.streams[index]
          return result === undefined
            ? []
            : [
                {
                  endpoint: stream.endpoint,
                  connections: stream.connections,
                  ...result,
                  poolSize: poolSizeOf(stream.scenario)
                }
              ]
        })
        settled = true
        resume(
          Effect.succeed({
            kind,
            name: plan.name,
            streams,
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

/**
 * What is wrong with a run: errors, timeouts, statuses other than the expected one, a dry pool,
 * and the problems of what settled after it (mail not delivered).
 */
export const problemsOf = (outcome: Outcome): ReadonlyArray<string> =>
  outcome.streams
    .flatMap((stream) => {
      const expected = String(stream.endpoint.expectedStatus)
      const problems: Array<string> = []
      for (const [phase, summary] of [
        ["warm-up", stream.warmup],
        ["measured", stream.measured]
      ] as const) {
        if (summary.errors > 0)
          problems.push(`${phase}: ${summary.errors} errors (${summary.timeouts} timeouts)`)
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
      if (stream.poolExhausted) problems.push(`the token pool (${stream.poolSize}) ran dry`)
      return problems.map((problem) => `${stream.endpoint.name}: ${problem}`)
    })
    .concat((outcome.settled?.problems ?? []).map((problem) => `${outcome.name}: ${problem}`))

export interface Variant {
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  /** Sets of the loads, one after the other, in one server process. */
  readonly sets: number
  readonly telemetry: boolean
}

export interface VariantResult {
  readonly variant: Variant
  readonly idle: number | undefined
  readonly sets: ReadonlyArray<ReadonlyArray<Outcome>>
  readonly collected: Readonly<Record<string, Collector.Received>> | undefined
}

/** How a bench starts its server and what it loads it with. */
export interface Service<Kind extends string> {
  readonly service: "oauth" | "auth"
  readonly readyPath: string
  readonly cwd?: string
  readonly baseUrl: string
  readonly database: string
  readonly serverEnv: Readonly<Record<string, string>>
  /** One request of each kind, checked by its body, before any load. */
  readonly smoke: Effect.Effect<void, BenchFailure>
  readonly kinds: ReadonlyArray<Kind>
  /** The load of a kind, its token pools minted now, while the server idles. */
  readonly plan: (kind: Kind) => Effect.Effect<RunPlan, BenchFailure>
  /**
   * Work a load leaves behind that must end before the next load measures (the mail outbox
   * draining), and what the bench checked of it.
   */
  readonly afterLoad?: (plan: RunPlan, outcome: Outcome) => Effect.Effect<Settled | undefined, BenchFailure>
  readonly collector?: Collector.Collector
}

const printServerLog = (server: ServerProcess.ServerProcess) => {
  for (const [key, count] of server.takeLog()) console.log(`  server logged ${count}× ${key}`)
}

/** One server process: started, smoke-tested, measured idle, then the loads, set after set. */
export const runVariant = <Kind extends string>(
  variant: Variant,
  service: Service<Kind>,
  profileDirectory: string | undefined
) =>
  Effect.gen(function* () {
    console.log(`\n== ${service.service} service: ${variant.name} ==`)
    const server = yield* ServerProcess.start({
      service: service.service,
      nodeFlags: [
        ...serverFlags[service.service],
        ...(profileDirectory === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDirectory}`])
      ],
      env: { ...service.serverEnv, ...variant.env },
      baseUrl: service.baseUrl,
      readyPath: service.readyPath,
      ...(service.cwd === undefined ? {} : { cwd: service.cwd })
    })
    console.log(`${service.service} service at ${service.baseUrl} (pid ${server.pid})`)
    yield* service.smoke
    // Idle: started, every endpoint's code loaded by the smoke test, the garbage settled.
    yield* Effect.sleep(Duration.seconds(2))
    const idle = ServerProcess.residentMiB(server.pid)
    console.log(`  server memory idle ${Report.mebibytes(idle)} MiB`)
    const sets: Array<ReadonlyArray<Outcome>> = []
    for (let set = 1; set <= variant.sets; set++) {
      const outcomes: Array<Outcome> = []
      for (const kind of service.kinds) {
        const plan = yield* service.plan(kind)
        console.log(
          `\n${plan.name}, set ${set} of ${variant.sets}: ${Flags.common.warmupSeconds} s warm-up, ${Flags.common.durationSeconds} s measured…`
        )
        yield* Machine.waitForQuiet(Flags.common.quietWaitSeconds)
        const loaded = yield* runLoad(service.baseUrl, service.database, kind, plan, server)
        Report.printOutcome(loaded)
        const settled = service.afterLoad === undefined ? undefined : yield* service.afterLoad(plan, loaded)
        const outcome = settled === undefined ? loaded : { ...loaded, settled }
        if (settled !== undefined) Report.printSettled(settled)
        printServerLog(server)
        outcomes.push(outcome)
      }
      sets.push(outcomes)
    }
    return {
      variant,
      idle,
      sets,
      collected: variant.telemetry ? service.collector?.received() : undefined
    } satisfies VariantResult
  })

/** Every problem of every run, each naming its variant; none for a clean bench. */
export const problemsOfAll = (results: ReadonlyArray<VariantResult>) =>
  results.flatMap((result) =>
    result.sets
      .flat()
      .flatMap((outcome) => problemsOf(outcome).map((problem) => `${result.variant.name}: ${problem}`))
  )

/** The profile `--cpu-prof` wrote when the server exited, kept under bench/profiles/ and summarised. */
export const keepProfile = (name: string, directory: string) =>
  Effect.gen(function* () {
    const written = readdirSync(directory).filter((file) => file.endsWith(".cpuprofile"))
    const file = written[0]
    if (file === undefined) return yield* new BenchFailure({ message: "the server wrote no CPU profile" })
    const text = readFileSync(join(directory, file), "utf8")
    const target = fileURLToPath(new URL("../../bench/profiles/", import.meta.url))
    mkdirSync(target, { recursive: true })
    const kept = join(target, `${name}-${new Date().toISOString().replaceAll(":", "-")}.cpuprofile`)
    writeFileSync(kept, text)
    const profile: CpuProfile.CpuProfile = JSON.parse(text)
    console.log(`\nCPU profile of the server process (start, warm-up and measured run): ${kept}\n`)
    console.log(CpuProfile.format(CpuProfile.summarise(profile, 20)))
  })

/**
 * Runs a bench to its end: exit 1 with the failure's message (a `BenchFailure`) or its cause,
 * 130 when interrupted.
 */
export const runMain = <E>(main: Effect.Effect<void, E, Scope.Scope>) =>
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
