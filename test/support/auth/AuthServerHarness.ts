import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as CliProcess from "../CliProcess.js"
import * as TestDatabase from "../TestDatabase.js"
import * as AuthServerEnvironment from "./AuthServerEnvironment.js"

export { jwtSecret } from "./AuthServerEnvironment.js"

export interface RunningAuth {
  readonly baseUrl: string
  /** The instance's configuration as the test reads it, to run operator use cases on its database. */
  readonly config: AuthConfig.AuthConfig
  /** The database URL the instance uses (none: embedded), for starting more instances on it. */
  readonly databaseUrl: Option.Option<string>
  /** The process, with what it printed. */
  readonly process: CliProcess.Running
}

/**
 * Starts the built auth service as its own process, as `latchkey auth serve` runs for users,
 * configured by environment variables alone (AuthServerEnvironment): migrations at start, a
 * signing key created on first start, its working directory an empty folder (no `.env` is
 * read). Stopped with the scope.
 */
export const start = (options: AuthServerEnvironment.Options = {}) =>
  Effect.gen(function* () {
    const { baseUrl, config, databaseUrl, dataDir, env } = yield* AuthServerEnvironment.prepare(options)
    const process = yield* CliProcess.spawnCli(["auth", "serve"], env, { cwd: dataDir })
    yield* CliProcess.waitUntilAnswering(process, `${baseUrl}/health`)
    return { baseUrl, config, databaseUrl, process } satisfies RunningAuth
  })

/**
 * Two instances on one fresh database, started at the same moment (both migrate; one signing
 * key results), for what several instances must share.
 */
export const startPair = (env: Readonly<Record<string, string | undefined>> = {}) =>
  Effect.flatMap(TestDatabase.freshUrl(), (url) =>
    Effect.all([start({ env, databaseUrl: url }), start({ env, databaseUrl: url })], {
      concurrency: "unbounded"
    })
  )
