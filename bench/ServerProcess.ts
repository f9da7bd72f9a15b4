/**
 * The server under load, as its own process: `node <flags> dist/bootstrap/cli.js <service>
 * serve` (oauth or auth), configured through its environment exactly as an operator would. Its CPU time and resident
 * memory are read from /proc; its log lines (JSON, LOG_LEVEL=warn) are counted, the first of
 * each kind printed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"

export class ServerFailure extends Schema.TaggedError<ServerFailure>()("ServerFailure", {
  message: Schema.String
}) {}

const cli = fileURLToPath(new URL("../bootstrap/cli.js", import.meta.url))

/** CPU seconds the process used, user and kernel, from /proc/<pid>/stat (none off Linux). */
export interface CpuTime {
  readonly user: number
  readonly system: number
}

export const cpuTime = (pid: number): CpuTime | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime and stime: fields 14 and 15 of /proc/<pid>/stat, counted here from field 3, in
    // clock ticks of 1/100 s (USER_HZ on Linux).
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 }
  } catch {
    return undefined
  }
}

/** Resident memory in MiB, from /proc/<pid>/status (none off Linux). */
export const residentMiB = (pid: number): number | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"))
    return line === undefined ? undefined : Number(line.replace(/\D+/g, "")) / 1024
  } catch {
    return undefined
  }
}

export interface ServerProcess {
  readonly pid: number
  readonly child: ChildProcess
  /** Log lines by level and message, since the last `takeLog`. */
  readonly takeLog: () => ReadonlyMap<string, number>
}

const logKey = (line: string) => {
  try {
    const parsed: unknown = JSON.parse(line)
    if (typeof parsed === "object" && parsed !== null && "level" in parsed && "message" in parsed) {
      return `${String(parsed.level)} "${String(parsed.message)}"`
    }
  } catch {
    // Not a log line of ours (a runtime warning): counted as it is.
  }
  return line.slice(0, 200)
}

/**
 * Starts the server and waits until it answers; stops it (SIGTERM: graceful shutdown) and
 * waits for its exit when the scope closes, so that a `--cpu-prof` profile is written.
 */
export const start = (options: {
  readonly service: "oauth" | "auth"
  readonly nodeFlags: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly baseUrl: string
  /** A path the service answers 200 at once it serves. */
  readonly readyPath: string
  /**
   * The working directory: the auth service reads a `.env` there, which must not be the
   * developer's own.
   */
  readonly cwd?: string
}) =>
  Effect.gen(function* () {
    const log = new Map<string, number>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [...options.nodeFlags, cli, options.service, "serve"], {
          env: { PATH: process.env.PATH ?? "", ...options.env },
          cwd: options.cwd,
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGTERM")
        }).pipe(
          Effect.timeoutOption(Duration.seconds(20)),
          Effect.tap(() => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL")))
        )
    )
    const count = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue
        const key = logKey(line)
        const seen = log.get(key) ?? 0
        log.set(key, seen + 1)
        if (seen === 0) console.error(`  server log: ${line.slice(0, 2000)}`)
      }
    }
    child.stdout?.on("data", count)
    child.stderr?.on("data", count)
    const pid = child.pid
    if (pid === undefined) return yield* new ServerFailure({ message: "the server process did not start" })
    yield* Effect.tryPromise(() => fetch(`${options.baseUrl}${options.readyPath}`)).pipe(
      Effect.filterOrFail((response) => response.ok),
      Effect.retry(
        Schedule.spaced(Duration.millis(100)).pipe(
          Schedule.upTo(Duration.seconds(30)),
          Schedule.whileInput(() => child.exitCode === null)
        )
      ),
      Effect.mapError(
        () =>
          new ServerFailure({
            message: `the server did not come up within 30 s${child.exitCode === null ? "" : ` (it exited with ${child.exitCode})`}`
          })
      )
    )
    const takeLog = () => {
      const taken = new Map(log)
      log.clear()
      return taken
    }
    return { pid, child, takeLog } satisfies ServerProcess
  })
