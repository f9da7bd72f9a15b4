/**
 * What a bench prints and what it records in docs/performance.md: a section per run, a table
 * per server process (variant), a row per stream of each load.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type * as Collector from "./Collector.js"
import * as Flags from "./Flags.js"
import type * as Machine from "./Machine.js"
import type * as Runner from "./Runner.js"

export const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
export const percent = (value: number | undefined) => (value === undefined ? "n/a" : `${fixed(value)}%`)
export const mebibytes = (value: number | undefined) => (value === undefined ? "n/a" : fixed(value, 1))

/**
 * Milliseconds of the server process's CPU time per completed request in the measured run;
 * for a run of several streams, over the requests of all of them.
 */
const serverCpuPerRequest = (outcome: Runner.Outcome) => {
  const requests = outcome.streams.reduce((sum, stream) => sum + stream.measured.requests, 0)
  const seconds = outcome.streams[0]?.measured.seconds ?? 0
  return requests === 0 || outcome.serverCpuPercent === undefined
    ? undefined
    : ((outcome.serverCpuPercent / 100) * seconds * 1000) / requests
}

const perRequestText = (outcome: Runner.Outcome) => {
  const value = serverCpuPerRequest(outcome)
  return value === undefined ? "n/a" : fixed(value, 2)
}

export const targetText = (target: Runner.Target | undefined) => {
  if (target === undefined) return "none (reference)"
  const parts = [
    ...(target.requestsPerSecond === undefined
      ? []
      : [`≥ ${target.requestsPerSecond.toLocaleString("en-US")} req/s`]),
    ...(target.p99 === undefined ? [] : [`p99 ≤ ${target.p99} ms`])
  ]
  return parts.join(", ")
}

export const metText = (met: boolean | undefined, yes: string, no: string) =>
  met === undefined ? "—" : met ? yes : no

/** A stream's name, with its connections when a run has several streams or another number than the rest. */
const streamName = (outcome: Runner.Outcome, stream: Runner.StreamOutcome) =>
  outcome.streams.length === 1
    ? stream.connections === Flags.common.connections
      ? stream.endpoint.name
      : `${stream.endpoint.name}, ${stream.connections} connections`
    : `${outcome.name}: ${stream.endpoint.name}, ${stream.connections} connections`

export const printOutcome = (outcome: Runner.Outcome) => {
  for (const stream of outcome.streams) {
    const m = stream.measured
    console.log(
      [
        streamName(outcome, stream),
        `  req/s (average) ${fixed(m.requestsPerSecond, 1)}   requests ${fixed(m.requests)} in ${m.seconds} s`,
        `  latency p50 ${m.p50} ms   p99 ${m.p99} ms   max ${m.max} ms`,
        `  non-2xx ${m.non2xx}   errors ${m.errors} (timeouts ${m.timeouts})   statuses ${JSON.stringify(m.statusCodes)}`,
        `  warm-up ${fixed(stream.warmup.requestsPerSecond, 1)} req/s, non-2xx ${stream.warmup.non2xx}, errors ${stream.warmup.errors}`,
        `  target ${targetText(stream.endpoint.target)}: ${metText(meetsTarget(stream), "met", "MISSED")}`,
        ...(stream.poolSize > 0 ? [`  tokens used ${stream.poolTaken} of ${stream.poolSize}`] : [])
      ].join("\n")
    )
  }
  console.log(
    [
      `  CPU (100% = one core): server ${percent(outcome.serverCpuPercent)} (kernel ${percent(outcome.serverSystemCpuPercent)}; ${perRequestText(outcome)} ms a request), PostgreSQL ${percent(outcome.postgresCpuPercent)}, load generator ${percent(outcome.loadCpuPercent)}, other processes ${percent(outcome.otherCpuPercent)}`,
      `  server memory after the load ${mebibytes(outcome.rssAfter)} MiB`
    ].join("\n")
  )
}

export const printSettled = (settled: Runner.Settled) => {
  for (const note of settled.notes) console.log(`  ${note}`)
  for (const problem of settled.problems) console.log(`  PROBLEM: ${problem}`)
}

/** Whether a stream's measured run meets its endpoint's target; none for a reference measurement. */
export const meetsTarget = (stream: Runner.StreamOutcome): boolean | undefined => {
  const target = stream.endpoint.target
  if (target === undefined) return undefined
  return (
    (target.requestsPerSecond === undefined ||
      stream.measured.requestsPerSecond >= target.requestsPerSecond) &&
    (target.p99 === undefined || stream.measured.p99 <= target.p99)
  )
}

/** Targets of the server's resident memory; a bench without them records the figures only. */
export interface MemoryTargets {
  readonly idleMiB: number
  readonly afterMiB: number
  readonly growthMiB: number
}

const endOf = (set: ReadonlyArray<Runner.Outcome> | undefined) => set?.at(-1)?.rssAfter

type MemoryRow = readonly [
  what: string,
  mebibytes: number | undefined,
  target: string,
  met: boolean | undefined
]

/**
 * The memory verdicts of a variant: [what, MiB, target, met]. Checked only with telemetry off
 * and targets given; otherwise recorded.
 */
export const memoryRows = (
  result: Runner.VariantResult,
  targets: MemoryTargets | undefined
): ReadonlyArray<MemoryRow> => {
  const rows: Array<MemoryRow> = [
    ["idle, after start and one request of each kind", result.idle, "", undefined]
  ]
  result.sets.forEach((set, index) => {
    for (const outcome of set)
      rows.push([`after ${outcome.name}, set ${index + 1}`, outcome.rssAfter, "", undefined])
  })
  if (targets === undefined || result.variant.telemetry) return rows
  const verdicts = rows.map(([what, value], index): MemoryRow => {
    if (index === 0)
      return [what, value, `≤ ${targets.idleMiB}`, value === undefined ? undefined : value <= targets.idleMiB]
    if (index === rows.length - 1)
      return [
        what,
        value,
        `≤ ${targets.afterMiB}`,
        value === undefined ? undefined : value <= targets.afterMiB
      ]
    return [what, value, "", undefined]
  })
  const first = endOf(result.sets[0])
  const last = endOf(result.sets.at(-1))
  if (result.sets.length > 1 && first !== undefined && last !== undefined) {
    return [
      ...verdicts,
      [
        `growth from the end of set 1 to the end of set ${result.sets.length}`,
        last - first,
        `≤ ${targets.growthMiB}`,
        last - first <= targets.growthMiB
      ]
    ]
  }
  return verdicts
}

/** A warning under a variant that shared the machine with other busy processes. */
const noisy = (outcomes: ReadonlyArray<Runner.Outcome>): ReadonlyArray<string> => {
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

/** What was checked after the loads that left work behind, by set and load. */
const settledText = (sets: ReadonlyArray<ReadonlyArray<Runner.Outcome>>) =>
  sets.flatMap((set, index) =>
    set.flatMap((outcome) =>
      outcome.settled === undefined
        ? []
        : [
            "",
            `After ${outcome.name}, set ${index + 1}: ${[...outcome.settled.notes, ...outcome.settled.problems.map((problem) => `**${problem}**`)].join(" ")}`
          ]
    )
  )

const outcomeRows = (set: number, outcome: Runner.Outcome) =>
  outcome.streams.map((stream) => {
    const s = stream.measured
    return `| ${set} | ${streamName(outcome, stream)} | ${fixed(s.requestsPerSecond)} | ${s.p50} | ${s.p99} | ${s.max} | ${fixed(s.requests)} | ${s.non2xx} | ${s.errors} | ${perRequestText(outcome)} | ${percent(outcome.serverCpuPercent)} / ${percent(outcome.postgresCpuPercent)} / ${percent(outcome.loadCpuPercent)} / ${percent(outcome.otherCpuPercent)} | ${mebibytes(outcome.rssAfter)} | ${targetText(stream.endpoint.target)} | ${metText(meetsTarget(stream), "yes", "**no**")} |`
  })

export const variantSection = (
  heading: string,
  result: Runner.VariantResult,
  targets: MemoryTargets | undefined
) => [
  `#### ${heading}`,
  "",
  "| set | endpoint | req/s | p50 ms | p99 ms | max ms | requests | non-2xx | errors | server CPU ms a request | CPU server / PostgreSQL / load / other | server RSS after, MiB | target | met |",
  "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |",
  ...result.sets.flatMap((set, index) => set.flatMap((outcome) => outcomeRows(index + 1, outcome))),
  ...noisy(result.sets.flat()),
  ...settledText(result.sets),
  ...collectedText(result.collected),
  "",
  "| server memory (RSS) | MiB | target | met |",
  "| --- | ---: | --- | --- |",
  ...memoryRows(result, targets).map(
    ([what, value, target, met]) =>
      `| ${what} | ${mebibytes(value)} | ${target === "" ? "—" : target} | ${metText(met, "yes", "**no**")} |`
  ),
  ""
]

/** The head of a run's section: when, on what, with which load; the services' tables follow. */
export const runHead = (at: Date, service: string, m: Machine.Machine, servers: ReadonlyArray<string>) => [
  `### Run of ${at.toISOString().replace("T", " ").slice(0, 16)} UTC: ${service}`,
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
  ...servers.map((server) => `| server | ${server} |`),
  `| load | autocannon, ${Flags.common.connections} connections unless a row says otherwise, ${Flags.common.warmupSeconds} s warm-up, ${Flags.common.durationSeconds} s measured, from a child process |`,
  ""
]

const docsPath = fileURLToPath(new URL("../../docs/performance.md", import.meta.url))
const startMarker = "<!-- bench:runs:start (written by npm run bench, newest first) -->"
const endMarker = "<!-- bench:runs:end -->"

/** Adds the run at the top of the generated block of docs/performance.md; the prose stays as it is. */
export const recordRun = (section: string) => {
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
