/**
 * Summarises a V8 .cpuprofile: self time by package, and the top functions by self time.
 * `node dist/bench/cpuprofile.js <file.cpuprofile> [top]`; bench/oauth.ts uses it with --profile.
 */
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples?: ReadonlyArray<number>
  readonly timeDeltas?: ReadonlyArray<number>
}

const special = new Set(["(garbage collector)", "(program)", "(idle)", "(root)"])

/** Which package a frame belongs to: a node_modules package, Node itself, or our own folders. */
export const packageOf = (frame: CallFrame): string => {
  if (special.has(frame.functionName)) return frame.functionName
  const url = frame.url
  if (url === "") return "(native)"
  if (url.startsWith("node:")) return "node (core)"
  const modules = url.lastIndexOf("/node_modules/")
  if (modules >= 0) {
    const [first = "", second = ""] = url.slice(modules + "/node_modules/".length).split("/")
    return first.startsWith("@") ? `${first}/${second}` : first
  }
  const dist = url.lastIndexOf("/dist/")
  if (dist >= 0) return `latchkey/${url.slice(dist + "/dist/".length).split("/")[0] ?? ""}`
  return url
}

const shortLocation = (frame: CallFrame): string => {
  if (frame.url === "") return ""
  const modules = frame.url.lastIndexOf("/node_modules/")
  const dist = frame.url.lastIndexOf("/dist/")
  const path =
    modules >= 0
      ? frame.url.slice(modules + "/node_modules/".length)
      : dist >= 0
        ? frame.url.slice(dist + "/dist/".length)
        : frame.url.replace(/^file:\/\//, "")
  return `${path}:${frame.lineNumber + 1}`
}

export interface Row {
  readonly name: string
  readonly location: string
  readonly pkg: string
  readonly selfMs: number
  readonly percent: number
}

export interface ProfileSummary {
  readonly totalMs: number
  /** Samples outside (idle): what the process actually spent on the CPU. */
  readonly busyMs: number
  readonly packages: ReadonlyArray<Row>
  readonly functions: ReadonlyArray<Row>
}

export const summarise = (profile: CpuProfile, top = 20): ProfileSummary => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfMicros = new Map<number, number>()
  const samples = profile.samples ?? []
  const deltas = profile.timeDeltas ?? []
  // Each sample stands for the time until the next one (the last for its own delta).
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] ?? -1
    const micros = deltas[i + 1] ?? deltas[i] ?? 0
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + micros)
  }
  const functions = new Map<string, { frame: CallFrame; micros: number }>()
  const packages = new Map<string, number>()
  let total = 0
  let idle = 0
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame
    if (frame === undefined) continue
    total += micros
    if (frame.functionName === "(idle)") idle += micros
    const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`
    const entry = functions.get(key) ?? { frame, micros: 0 }
    entry.micros += micros
    functions.set(key, entry)
    const pkg = packageOf(frame)
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros)
  }
  const row = (name: string, location: string, pkg: string, micros: number): Row => ({
    name,
    location,
    pkg,
    selfMs: micros / 1000,
    percent: total === 0 ? 0 : (micros / total) * 100
  })
  return {
    totalMs: total / 1000,
    busyMs: (total - idle) / 1000,
    packages: [...packages].sort(([, a], [, b]) => b - a).map(([pkg, micros]) => row(pkg, "", pkg, micros)),
    functions: [...functions.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map(({ frame, micros }) =>
        row(
          frame.functionName === "" ? "(anonymous)" : frame.functionName,
          shortLocation(frame),
          packageOf(frame),
          micros
        )
      )
  }
}

const ms = (value: number) => value.toFixed(0)
const pct = (value: number) => value.toFixed(1)

/** The summary as Markdown tables. */
export const format = (summary: ProfileSummary): string =>
  [
    `Profiled ${ms(summary.totalMs)} ms, of which ${ms(summary.busyMs)} ms on the CPU (${pct(
      summary.totalMs === 0 ? 0 : (summary.busyMs / summary.totalMs) * 100
    )}%).`,
    "",
    "| package | self ms | self % |",
    "| --- | ---: | ---: |",
    ...summary.packages.map((r) => `| ${r.pkg} | ${ms(r.selfMs)} | ${pct(r.percent)} |`),
    "",
    "| function | where | package | self ms | self % |",
    "| --- | --- | --- | ---: | ---: |",
    ...summary.functions.map(
      (r) => `| \`${r.name}\` | ${r.location} | ${r.pkg} | ${ms(r.selfMs)} | ${pct(r.percent)} |`
    )
  ].join("\n")

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [file, top] = process.argv.slice(2)
  if (file === undefined) {
    console.error("usage: node dist/bench/cpuprofile.js <file.cpuprofile> [top]")
    process.exit(2)
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  console.log(format(summarise(profile, top === undefined ? 20 : Number(top))))
}
