import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as Flags from "../../bench/Flags.js"
import type { Summary } from "../../bench/protocol.js"
import * as Results from "../../bench/Results.js"
import type * as Runner from "../../bench/Runner.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const resultsDirectory = join(root, "bench/results")

const summary = (requestsPerSecond: number, p99: number): Summary => ({
  requestsPerSecond,
  requests: Math.round(requestsPerSecond * 10),
  seconds: 10,
  p50: 5,
  p99,
  max: 40,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: { "200": Math.round(requestsPerSecond * 10) }
})

const refresh: Runner.Endpoint = {
  name: "refresh grant (POST /token)",
  expectedStatus: 200,
  target: { requestsPerSecond: 1000, p99: 40 }
}

const outcome = (requestsPerSecond: number, rssAfter: number): Runner.Outcome => ({
  kind: "refresh",
  name: refresh.name,
  streams: [
    {
      endpoint: refresh,
      connections: Flags.common.connections,
      warmup: summary(900, 30),
      measured: summary(requestsPerSecond, 20),
      poolTaken: 12_000,
      poolSize: 120_000,
      poolExhausted: false
    }
  ],
  loadCpuPercent: 15.04,
  serverCpuPercent: 123.456,
  serverSystemCpuPercent: 20.02,
  postgresCpuPercent: 35,
  otherCpuPercent: undefined,
  rssAfter
})

const result: Runner.VariantResult = {
  variant: { name: "Telemetry off", env: {}, sets: 2, telemetry: false },
  idle: 99.94,
  sets: [[outcome(1234.56, 150.26)], [outcome(1300, 152.5)]],
  collected: undefined
}

const lines = Results.linesOf({
  bench: "oauth",
  at: new Date("2026-12-01T10:00:00.000Z"),
  machine: {
    cpu: "AMD EPYC",
    cores: 2,
    memory: "23.5 GiB",
    node: "v20.20.2",
    postgres: "PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu",
    postgresSettings: "synchronous_commit=on, shared_buffers=128MB",
    commit: "abc1234"
  },
  server: ["its own process"],
  results: [result],
  memoryTargets: { idleMiB: 110, afterMiB: 180, growthMiB: 10 }
})

describe("bench results", () => {
  it("records a line per load of each set, as JSON that reads back as written", () => {
    const read = lines.map((line) => Schema.decodeUnknownSync(Results.Line)(JSON.parse(JSON.stringify(line))))
    expect(read).toEqual(lines)
    expect(read.map((line) => [line.set, line.kind, line.streams[0]?.requestsPerSecond])).toEqual([
      [1, "refresh", 1234.6],
      [2, "refresh", 1300]
    ])
    const first = read[0]
    expect(first?.variant).toEqual({
      name: "Telemetry off",
      telemetry: false,
      idleMiB: 99.9,
      growthMiB: 2.2,
      memoryTargets: { idleMiB: 110, afterMiB: 180, growthMiB: 10 }
    })
    // 123.456% of a core for 10 s is 12,345.6 ms over 12,346 requests.
    expect(first?.cpu).toEqual({
      serverPercent: 123.5,
      serverSystemPercent: 20,
      postgresPercent: 35,
      loadPercent: 15,
      otherPercent: null,
      serverMsPerRequest: 1
    })
    expect(first?.streams[0]?.met).toBe(true)
  })

  it("shows the latest run's last set and its memory against the targets", () => {
    const table = Results.currentTable(lines)
    expect(table).toContain(
      "| Telemetry off, set 2 of 2 | req/s | p99 ms | server CPU ms a request | target | met |"
    )
    expect(table).toContain(
      "| refresh grant (POST /token) | 1,300 | 20 | 0.95 | ≥ 1,000 req/s, p99 ≤ 40 ms | yes |"
    )
    expect(table).toContain(
      "Server memory (RSS): idle 99.9 MiB (≤ 110: met), after the loads 152.5 MiB (≤ 180: met), growth from set 1 to set 2 2.2 MiB (≤ 10: met)."
    )
    expect(table).not.toContain("1,235")
  })

  it("holds only lines that read, and docs/performance.md shows the latest of them", () => {
    const recorded = Results.readAll(resultsDirectory)
    const latestAuth = recorded.filter((line) => line.bench === "auth").at(-1)?.date
    expect(
      recorded.filter((line) => line.bench === "auth" && line.date === latestAuth).map((line) => line.kind)
    ).toEqual(["user", "refresh", "password", "mixed", "signup", "otp", "verify", "factor"])
    const directory = mkdtempSync(join(os.tmpdir(), "latchkey-results-"))
    try {
      const copy = join(directory, "performance.md")
      copyFileSync(join(root, "docs/performance.md"), copy)
      Results.writeCurrentTable(recorded, copy)
      expect(readFileSync(copy, "utf8")).toBe(readFileSync(join(root, "docs/performance.md"), "utf8"))
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })
})
