import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as CliProcess from "../CliProcess.js"
import { freePort } from "../FreePort.js"
import * as TestDatabase from "../TestDatabase.js"

/** A JWT secret for tests: HS256 tokens (Supabase's API keys) verify with it. */
export const jwtSecret = "test-jwt-secret-with-at-least-thirty-two-characters"

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
 * configured by environment variables alone: a fresh database on the run's PostgreSQL (the
 * embedded one when there is none), migrations at start, a signing key created on first start,
 * a free loopback port, its working directory an empty folder (no `.env` is read). Stopped with
 * the scope.
 */
export const start = (
  options: {
    /** Variables over the harness's own; `undefined` unsets one. */
    readonly env?: Readonly<Record<string, string | undefined>>
    /** Another instance's database, to start a second instance beside it. */
    readonly databaseUrl?: Option.Option<string>
    /** The port to listen on, chosen beforehand (an upstream must know our callback first). */
    readonly port?: number
  } = {}
) =>
  Effect.gen(function* () {
    const port = options.port ?? (yield* freePort)
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-auth-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const databaseUrl = options.databaseUrl ?? (yield* TestDatabase.freshUrl())
    const env: Record<string, string | undefined> = {
      LATCHKEY_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      AUTHSVC_API_HOST: "127.0.0.1",
      AUTHSVC_API_PORT: String(port),
      AUTHSVC_SITE_URL: "http://localhost:3000",
      AUTHSVC_API_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      AUTHSVC_JWT_SECRET: jwtSecret,
      AUTHSVC_MAILER_AUTOCONFIRM: "true",
      AUTHSVC_SMS_AUTOCONFIRM: "true",
      AUTHSVC_EXTERNAL_PHONE_ENABLED: "true",
      AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
      // Every test talks from 127.0.0.1 and sends far more than a person would: the limits
      // have tests of their own.
      AUTHSVC_RATE_LIMIT_EMAIL_SENT: "1000000",
      AUTHSVC_RATE_LIMIT_SMS_SENT: "1000000",
      AUTHSVC_RATE_LIMIT_OTP: "1000000",
      AUTHSVC_RATE_LIMIT_VERIFY: "1000000",
      DATABASE_URL: Option.getOrUndefined(databaseUrl),
      ...options.env
    }
    const config = yield* Effect.orDie(
      Effect.withConfigProvider(
        AuthConfig.server,
        AuthEnvironment.provider(AuthEnvironment.merge(Option.none(), env))
      )
    )
    const process = yield* CliProcess.spawnCli(["auth", "serve"], env, { cwd: dataDir })
    const baseUrl = `http://127.0.0.1:${port}`
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
