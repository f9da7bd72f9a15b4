/**
 * What a full bench run records: one JSON line per load, for each set of each variant (server
 * process), appended to bench/results/<bench>.jsonl, each line whole on its own (the machine,
 * the commit and the date repeated), so that `grep`, `jq` or a notebook can read any slice of
 * the history; and, from the latest run of each bench, the short table of current figures in
 * docs/performance.md.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Schema from "effect/Schema"
import type * as Collector from "./Collector.js"
import * as Flags from "./Flags.js"
import type * as Machine from "./Machine.js"
import * as Report from "./Report.js"
import type * as Runner from "./Runner.js"

const Target = Schema.Struct({
  requestsPerSecond: Schema.optional(Schema.Number),
  p99: Schema.optional(Schema.Number)
})

/** One autocannon instance of a load: what it called, with how many connections, and how it went. */
const Stream = Schema.Struct({
  endpoint: Schema.String,
  connections: Schema.Number,
  /** The mean of the measured seconds' request counts. */
  requestsPerSecond: Schema.Number,
  /** Latencies of the measured run, ms. */
  p50: Schema.Number,
  p99: Schema.Number,
  max: Schema.Number,
  requests: Schema.Number,
  non2xx: Schema.Number,
  errors: Schema.Number,
  /** Absent from the runs recorded before the results were data. */
  timeouts: Schema.optional(Schema.Number),
  statusCodes: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  /** None: measured for reference only. */
  target: Schema.NullOr(Target),
  met: Schema.NullOr(Schema.Boolean)
})

/** CPU while measuring, in percent of one core; null where it could not be read. */
const Cpu = Schema.Struct({
  serverPercent: Schema.NullOr(Schema.Number),
  /** The kernel's share of the server's; absent from the runs recorded before the results were data. */
  serverSystemPercent: Schema.optional(Schema.NullOr(Schema.Number)),
  postgresPercent: Schema.NullOr(Schema.Number),
  loadPercent: Schema.NullOr(Schema.Number),
  otherPercent: Schema.NullOr(Schema.Number),
  /** The server's CPU time per completed request, ms, over all the load's streams. */
  serverMsPerRequest: Schema.NullOr(Schema.Number)
})

const MemoryTargets = Schema.Struct({
  idleMiB: Schema.Number,
  afterMiB: Schema.Number,
  growthMiB: Schema.Number
})

/** One server process of a run: its settings' name and what it measured as a whole. */
const Variant = Schema.Struct({
  name: Schema.String,
  telemetry: Schema.Boolean,
  /** Resident memory after start and one request of each kind, MiB. */
  idleMiB: Schema.NullOr(Schema.Number),
  /**
   * How much more it held after the last set than after the first, MiB, from the figures before
   * they were rounded (the leak check); absent for a process of one set.
   */
  growthMiB: Schema.optional(Schema.Number),
  /** The memory targets the process was held to (telemetry off); absent where none applied. */
  memoryTargets: Schema.optional(MemoryTargets),
  /** What the collector stand-in received by path, over the whole process (telemetry on). */
  collected: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Struct({ exports: Schema.Number, KiB: Schema.Number })
    })
  )
})

export const Line = Schema.Struct({
  bench: Schema.Literal("oauth", "auth"),
  /** When the run was recorded, ISO 8601; every line of one run has the same. */
  date: Schema.String,
  /** The commit measured, "<hash> with uncommitted changes" when the work tree differed. */
  commit: Schema.String,
  machine: Schema.Struct({
    cpu: Schema.String,
    cores: Schema.Number,
    memory: Schema.String,
    node: Schema.String,
    postgres: Schema.String,
    postgresSettings: Schema.String
  }),
  /** How the server ran; empty for the early runs that did not say. */
  server: Schema.Array(Schema.String),
  load: Schema.Struct({
    connections: Schema.Number,
    warmupSeconds: Schema.Number,
    durationSeconds: Schema.Number
  }),
  /** None for the early runs, which had one server process and did not name it. */
  variant: Schema.NullOr(Variant),
  set: Schema.Number,
  /** The bench's name for the load (`--only=<kind>`). */
  kind: Schema.String,
  name: Schema.String,
  streams: Schema.Array(Stream),
  cpu: Cpu,
  /** The server's resident memory once the load stopped, MiB; absent from the early runs. */
  rssAfterMiB: Schema.optional(Schema.NullOr(Schema.Number)),
  /** What the bench checked after the load (mail delivered); absent for most loads. */
  notes: Schema.optional(Schema.Array(Schema.String))
})

export type Line = typeof Line.Type

export type Bench = Line["bench"]

/** Where the record goes, from the compiled bench (dist/bench/) up to the repository. */
export const paths = {
  results: fileURLToPath(new URL("../../bench/results/", import.meta.url)),
  docs: fileURLToPath(new URL("../../docs/performance.md", import.meta.url))
}
const startMarker = "<!-- bench:current:start (written by npm run bench from bench/results/) -->"
const endMarker = "<!-- bench:current:end -->"

const round = (value: number, digits: number) => Number(value.toFixed(digits))
const roundOrNull = (value: number | undefined, digits: number) =>
  value === undefined ? null : round(value, digits)

const collectedOf = (collected: Readonly<Record<string, Collector.Received>>) =>
  Object.fromEntries(
    Object.entries(collected).map(([path, received]) => [
      path,
      { exports: received.requests, KiB: Math.round(received.bytes / 1024) }
    ])
  )

/** How much more the process held after its last set than after its first; none for one set. */
const growthOf = (result: Runner.VariantResult) => {
  const first = result.sets[0]?.at(-1)?.rssAfter
  const last = result.sets.at(-1)?.at(-1)?.rssAfter
  return result.sets.length > 1 && first !== undefined && last !== undefined ? last - first : undefined
}

const variantOf = (result: Runner.VariantResult, memoryTargets: Report.MemoryTargets | undefined) => {
  const growth = growthOf(result)
  return {
    name: result.variant.name,
    telemetry: result.variant.telemetry,
    idleMiB: roundOrNull(result.idle, 1),
    ...(growth === undefined ? {} : { growthMiB: round(growth, 1) }),
    ...(memoryTargets === undefined || result.variant.telemetry ? {} : { memoryTargets }),
    ...(result.collected === undefined ? {} : { collected: collectedOf(result.collected) })
  }
}

const streamOf = (stream: Runner.StreamOutcome) => ({
  endpoint: stream.endpoint.name,
  connections: stream.connections,
  requestsPerSecond: round(stream.measured.requestsPerSecond, 1),
  p50: stream.measured.p50,
  p99: stream.measured.p99,
  max: stream.measured.max,
  requests: stream.measured.requests,
  non2xx: stream.measured.non2xx,
  errors: stream.measured.errors,
  timeouts: stream.measured.timeouts,
  statusCodes: stream.measured.statusCodes,
  target: stream.endpoint.target ?? null,
  met: Report.meetsTarget(stream) ?? null
})

/** The lines of one run: a load of a set of a variant each, in the order they ran. */
export const linesOf = (run: {
  readonly bench: Bench
  readonly at: Date
  readonly machine: Machine.Machine
  readonly server: ReadonlyArray<string>
  readonly results: ReadonlyArray<Runner.VariantResult>
  readonly memoryTargets: Report.MemoryTargets | undefined
}): ReadonlyArray<Line> =>
  run.results.flatMap((result) =>
    result.sets.flatMap((set, index) =>
      set.map(
        (outcome): Line => ({
          bench: run.bench,
          date: run.at.toISOString(),
          commit: run.machine.commit,
          machine: {
            cpu: run.machine.cpu,
            cores: run.machine.cores,
            memory: run.machine.memory,
            node: run.machine.node,
            postgres: run.machine.postgres,
            postgresSettings: run.machine.postgresSettings
          },
          server: run.server,
          load: {
            connections: Flags.common.connections,
            warmupSeconds: Flags.common.warmupSeconds,
            durationSeconds: Flags.common.durationSeconds
          },
          variant: variantOf(result, run.memoryTargets),
          set: index + 1,
          kind: outcome.kind,
          name: outcome.name,
          streams: outcome.streams.map(streamOf),
          cpu: {
            serverPercent: roundOrNull(outcome.serverCpuPercent, 1),
            serverSystemPercent: roundOrNull(outcome.serverSystemCpuPercent, 1),
            postgresPercent: roundOrNull(outcome.postgresCpuPercent, 1),
            loadPercent: round(outcome.loadCpuPercent, 1),
            otherPercent: roundOrNull(outcome.otherCpuPercent, 1),
            serverMsPerRequest: roundOrNull(Report.serverCpuPerRequest(outcome), 3)
          },
          rssAfterMiB: roundOrNull(outcome.rssAfter, 1),
          ...(outcome.settled === undefined ? {} : { notes: outcome.settled.notes })
        })
      )
    )
  )

const decodeLine = Schema.decodeUnknownEither(Line)

/** Every recorded line of every bench, each file oldest first. */
export const readAll = (directory = paths.results): ReadonlyArray<Line> =>
  readdirSync(directory)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .flatMap((file) =>
      readFileSync(join(directory, file), "utf8")
        .split("\n")
        .flatMap((text, index) => {
          if (text.trim() === "") return []
          const decoded = decodeLine(JSON.parse(text))
          if (decoded._tag === "Left")
            throw new Error(`bench/results/${file}:${index + 1}: ${decoded.left.message}`)
          return [decoded.right]
        })
    )

const minuteOf = (date: string) => `${date.replace("T", " ").slice(0, 16)} UTC`

const postgresVersion = (postgres: string) => /^PostgreSQL \S+/.exec(postgres)?.[0] ?? postgres

/** A stream's name in the table, with its connections where they are not the load's usual. */
const streamName = (line: Line, stream: Line["streams"][number]) =>
  line.streams.length === 1
    ? stream.connections === line.load.connections
      ? stream.endpoint
      : `${stream.endpoint}, ${stream.connections} connections`
    : `${line.name}: ${stream.endpoint}, ${stream.connections} connections`

const targetText = (target: Line["streams"][number]["target"]) =>
  Report.targetText(
    target === null
      ? undefined
      : {
          ...(target.requestsPerSecond === undefined ? {} : { requestsPerSecond: target.requestsPerSecond }),
          ...(target.p99 === undefined ? {} : { p99: target.p99 })
        }
  )

const cpuText = (value: number | null) => (value === null ? "n/a" : Report.fixed(value, 2))

const mebibytesText = (value: number | null | undefined) => Report.mebibytes(value ?? undefined)

/** The memory of a variant's process in one sentence, with its targets where it had them. */
const memoryText = (lines: ReadonlyArray<Line>) => {
  const variant = lines[0]?.variant
  if (variant === undefined || variant === null) return []
  const sets = Math.max(...lines.map((line) => line.set))
  const after = lines.filter((line) => line.set === sets).at(-1)?.rssAfterMiB ?? null
  const growth = variant.growthMiB ?? null
  const targets = variant.memoryTargets
  const verdict = (value: number | null, limit: number | undefined) =>
    limit === undefined || value === null
      ? ""
      : ` (≤ ${limit}: ${Report.metText(value <= limit, "met", "**missed**")})`
  const parts = [
    `idle ${mebibytesText(variant.idleMiB)} MiB${verdict(variant.idleMiB, targets?.idleMiB)}`,
    `after the loads ${mebibytesText(after)} MiB${verdict(after, targets?.afterMiB)}`,
    ...(growth === null
      ? []
      : [
          `growth from set 1 to set ${sets} ${Report.fixed(growth, 1)} MiB${verdict(growth, targets?.growthMiB)}`
        ])
  ]
  return ["", `Server memory (RSS): ${parts.join(", ")}${targets === undefined ? " (no targets)" : ""}.`]
}

/** A warning under a variant that shared the machine with other busy processes. */
const noisy = (lines: ReadonlyArray<Line>) => {
  const worst = Math.max(...lines.map((line) => line.cpu.otherPercent ?? 0))
  return worst < 25
    ? []
    : [
        "",
        `Other processes used up to ${Report.fixed(worst)}% of a core while this ran: its figures are depressed.`
      ]
}

/** The table of one variant of a run: its last set, a row per stream. */
const variantTable = (lines: ReadonlyArray<Line>) => {
  const first = lines[0]
  if (first === undefined) return []
  const sets = Math.max(...lines.map((line) => line.set))
  const heading = `${first.variant?.name ?? "one server process"}${sets > 1 ? `, set ${sets} of ${sets}` : ""}`
  return [
    "",
    `| ${heading} | req/s | p99 ms | server CPU ms a request | target | met |`,
    "| --- | ---: | ---: | ---: | --- | --- |",
    ...lines
      .filter((line) => line.set === sets)
      .flatMap((line) =>
        line.streams.map(
          (stream) =>
            `| ${streamName(line, stream)} | ${Report.fixed(stream.requestsPerSecond)} | ${stream.p99} | ${cpuText(line.cpu.serverMsPerRequest)} | ${targetText(stream.target)} | ${Report.metText(stream.met ?? undefined, "yes", "**no**")} |`
        )
      ),
    ...noisy(lines),
    ...memoryText(lines)
  ]
}

const benchNames: Readonly<Record<Bench, string>> = { oauth: "oauth service", auth: "auth service" }

/** The latest run of each bench: when, on what, and its figures, a table per variant. */
export const currentTable = (lines: ReadonlyArray<Line>): string =>
  (["oauth", "auth"] as const)
    .flatMap((bench) => {
      const ofBench = lines.filter((line) => line.bench === bench)
      const latest = ofBench.reduce<string | undefined>(
        (newest, line) => (newest === undefined || line.date > newest ? line.date : newest),
        undefined
      )
      const run = ofBench.filter((line) => line.date === latest)
      const head = run[0]
      if (head === undefined) return []
      const variants = [...new Set(run.map((line) => line.variant?.name ?? null))]
      return [
        `### ${benchNames[bench]}`,
        "",
        `Run of ${minuteOf(head.date)}, commit ${head.commit}, on ${head.machine.cpu} (${head.machine.cores} cores, ${head.machine.memory}), Node ${head.machine.node}, ${postgresVersion(head.machine.postgres)}; every line in bench/results/${bench}.jsonl.`,
        ...variants.flatMap((name) =>
          variantTable(run.filter((line) => (line.variant?.name ?? null) === name))
        ),
        ""
      ]
    })
    .join("\n")

/** Puts the current table between its markers in docs/performance.md; the prose stays as it is. */
export const writeCurrentTable = (lines: ReadonlyArray<Line>, docsPath = paths.docs) => {
  const text = readFileSync(docsPath, "utf8")
  const start = text.indexOf(startMarker)
  const end = text.indexOf(endMarker)
  if (start < 0 || end < start) throw new Error(`${docsPath} lacks the markers ${startMarker} … ${endMarker}`)
  writeFileSync(
    docsPath,
    `${text.slice(0, start + startMarker.length)}\n\n${currentTable(lines)}\n${text.slice(end)}`
  )
}

/** Appends a run's lines to bench/results/<bench>.jsonl, then rewrites the current table. */
export const record = (bench: Bench, lines: ReadonlyArray<Line>) => {
  const file = join(paths.results, `${bench}.jsonl`)
  mkdirSync(paths.results, { recursive: true })
  appendFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
  writeCurrentTable(readAll())
  console.log(`recorded the run in ${file} and the current table in ${paths.docs}`)
}
