import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

/**
 * The built `latchkey` executable started as its own process, as users start it: configured by
 * environment variables alone, its output read as an operator reads it. `globalSetup.ts` builds
 * `dist/` first when the sources are newer.
 */

export const cliPath = fileURLToPath(new URL("../../dist/bootstrap/cli.js", import.meta.url))

/**
 * What every process gets besides the test's variables: a path to find programs and a home.
 * Nothing else of the test runner's environment leaks in (no `TEST_DATABASE_URL`, no
 * `AUTHSVC_*` of the developer's shell), so a test states the whole configuration it runs with.
 */
const baseEnvironment = (): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp"
})

export interface Running {
  /** Everything the process printed so far, standard output and errors, one entry a line. */
  readonly lines: () => ReadonlyArray<string>
  /** Waits (up to `within`) for a line matching `pattern` and returns it. */
  readonly waitForLine: (pattern: RegExp, within?: Duration.DurationInput) => Effect.Effect<string>
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Effect.Effect<number | null>
  /** Whether the process has ended already. */
  readonly hasExited: () => boolean
  readonly pid: number | undefined
}

const collect = (child: ChildProcess, lines: Array<string>) => {
  for (const stream of [child.stdout, child.stderr]) {
    let pending = ""
    stream?.setEncoding("utf8")
    stream?.on("data", (chunk: string) => {
      pending += chunk
      const parts = pending.split("\n")
      pending = parts.pop() ?? ""
      lines.push(...parts)
    })
    stream?.on("end", () => {
      if (pending !== "") lines.push(pending)
      pending = ""
    })
  }
}

/**
 * Starts `latchkey <args>` with exactly `env` (over a path and a home) in `cwd`, and stops it
 * with SIGTERM when the scope closes (SIGKILL if it has not ended 10 s later). `cli` is the
 * executable, `cliPath` unless a test runs a copy of the build.
 */
export const spawnCli = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly cwd?: string; readonly execArgv?: ReadonlyArray<string>; readonly cli?: string } = {}
) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const environment = baseEnvironment()
      for (const [name, value] of Object.entries(env)) if (value !== undefined) environment[name] = value
      const child = spawn(process.execPath, [...(options.execArgv ?? []), options.cli ?? cliPath, ...args], {
        cwd: options.cwd,
        env: environment,
        stdio: ["ignore", "pipe", "pipe"]
      })
      const lines: Array<string> = []
      collect(child, lines)
      const exit = new Promise<number | null>((resolve) => {
        child.on("exit", (code) => resolve(code))
      })
      return { child, lines, exit }
    }),
    ({ child, exit }) =>
      Effect.promise(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill("SIGTERM")
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
        await exit
        clearTimeout(timer)
      })
  ).pipe(
    Effect.map(
      ({ child, lines, exit }): Running => ({
        lines: () => [...lines],
        waitForLine: (pattern, within = Duration.seconds(30)) =>
          Effect.suspend(() => {
            const found = lines.find((line) => pattern.test(line))
            return found === undefined ? Effect.fail("not yet" as const) : Effect.succeed(found)
          }).pipe(
            Effect.retry(Schedule.spaced(Duration.millis(50)).pipe(Schedule.upTo(within))),
            Effect.orElse(() =>
              Effect.dieMessage(
                `no line matching ${pattern} within ${Duration.format(within)}:\n${lines.join("\n")}`
              )
            )
          ),
        exited: Effect.promise(() => exit),
        hasExited: () => child.exitCode !== null || child.signalCode !== null,
        pid: child.pid
      })
    )
  )

/**
 * Waits until `url` answers 200, for a service the process starts; fails the test with
 * everything the process printed when it ends first or does not answer within `within`.
 */
export const waitUntilAnswering = (
  running: Running,
  url: string,
  within: Duration.DurationInput = Duration.seconds(60)
) =>
  Effect.tryPromise(() => fetch(url)).pipe(
    Effect.filterOrFail((response) => response.ok),
    Effect.retry(
      Schedule.spaced(Duration.millis(100)).pipe(
        Schedule.upTo(within),
        Schedule.whileInput(() => !running.hasExited())
      )
    ),
    Effect.asVoid,
    Effect.orElse(() =>
      Effect.dieMessage(`${url} never answered; the process printed:\n${running.lines().join("\n")}`)
    )
  )
