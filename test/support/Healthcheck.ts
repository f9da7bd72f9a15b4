import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"

/** The built HEALTHCHECK script of the container image (bootstrap/Healthcheck.ts). */
export const scriptPath = fileURLToPath(new URL("../../dist/bootstrap/Healthcheck.js", import.meta.url))

/**
 * Runs the built health check as the image's `HEALTHCHECK` does, with `args` and exactly `env`
 * (over a path), and answers its exit code and what it printed.
 */
export const run = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.async<{ readonly code: number; readonly output: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [scriptPath, ...args],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resume(Effect.succeed({ code, output: `${stdout}${stderr}` }))
      }
    )
    return Effect.sync(() => child.kill())
  })
