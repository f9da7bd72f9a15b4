/**
 * What a bench prints while it runs, and the verdicts it and its record share: targets met, the
 * server's CPU per request, the memory rows. What it records is bench/Results.ts.
 */
import * as Flags from "./Flags.js"
import type * as Runner from "./Runner.js"

export const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
export const percent = (value: number | undefined) => (value === undefined ? "n/a" : `${fixed(value)}%`)
export const mebibytes = (value: number | undefined) => (value === undefined ? "n/a" : fixed(value, 1))

/**
 * Milliseconds of the server process's CPU time per completed request in the measured run;
 * for a run of several streams, over the requests of all of them.
 */
export const serverCpuPerRequest = (outcome: Runner.Outcome) => {
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
