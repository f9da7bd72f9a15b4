/**
 * The machine a bench runs on: the CPU every process uses (from /proc), a wait for other work
 * to leave the cores, and what the record of a run says about the machine.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import os from "node:os"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Database from "./Database.js"
import * as Report from "./Report.js"

/**
 * CPU ticks of the PostgreSQL processes that work for this run, by pid: the backends connected
 * to our database and the server's own processes (postmaster, WAL writer, checkpointer…), not
 * the backends of other databases. From /proc; none when PostgreSQL runs elsewhere.
 */
export const postgresTicks = (database: string): Map<string, number> | undefined => {
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
export const postgresCpuBetween = (
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined
) => {
  if (before === undefined || after === undefined) return undefined
  let ticks = 0
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0)
  return ticks / 100
}

/** Busy CPU seconds of the whole machine, all cores, from /proc/stat (none off Linux). */
export const machineCpuSeconds = (): number | undefined => {
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
 * busy, twice in a row — for at most `limit` seconds (BENCH_QUIET_WAIT), then goes on regardless.
 */
export const waitForQuiet = (limit: number) =>
  Effect.gen(function* () {
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

export interface Machine {
  readonly cpu: string
  readonly cores: number
  readonly memory: string
  readonly node: string
  readonly postgres: string
  readonly postgresSettings: string
  readonly commit: string
}

/** The commit measured, marked when the working tree differs from it (untracked files and the runs recorded aside). */
const commit = (): string => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    // The record aside: the oauth bench has just written its lines and the current table when
    // the auth bench of the same `npm run bench` reads the mark.
    const changed = execFileSync(
      "git",
      [
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ":(top)",
        ":(top,exclude)docs/performance.md",
        ":(top,exclude)bench/results"
      ],
      { encoding: "utf8" }
    ).trim()
    return changed === "" ? head : `${head} with uncommitted changes`
  } catch {
    return "unknown"
  }
}

export const describe = (postgres: Database.ServerInfo): Machine => ({
  cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  cores: os.cpus().length,
  memory: `${Report.fixed(os.totalmem() / 2 ** 30, 1)} GiB`,
  node: process.version,
  postgres: postgres.version,
  postgresSettings: postgres.settings,
  commit: commit()
})
