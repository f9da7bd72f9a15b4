import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import { freePort } from "../FreePort.js"
import * as TestDatabase from "../TestDatabase.js"

/** A JWT secret for tests: HS256 tokens (Supabase's API keys) verify with it. */
export const jwtSecret = "test-jwt-secret-with-at-least-thirty-two-characters"

export interface Options {
  /** Variables over the harness's own; `undefined` unsets one. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Another instance's database, to start a second instance beside it. */
  readonly databaseUrl?: Option.Option<string>
  /** The port to listen on, chosen beforehand (an upstream must know our callback first). */
  readonly port?: number
}

/** What an auth service instance for a test starts with. */
export interface Prepared {
  readonly port: number
  readonly baseUrl: string
  /** An empty folder of its own, removed with the scope: its data directory and working directory. */
  readonly dataDir: string
  /** The database URL the instance uses (none: embedded). */
  readonly databaseUrl: Option.Option<string>
  /** Its variables, the caller's over the harness's. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The configuration those variables give, as the service reads it. */
  readonly config: AuthConfig.AuthConfig
}

/**
 * The variables and configuration of an auth service instance for a test, whether it runs as
 * the built executable (AuthServerHarness) or in the test's process (the service tests'
 * InProcessAuth): a fresh database on the run's PostgreSQL (embedded PGlite when there is
 * none), a free loopback port, confirmation and phone sign-ins on, and rate limits a test never
 * reaches.
 */
export const prepare = (options: Options = {}) =>
  Effect.gen(function* () {
    const port = options.port ?? (yield* freePort)
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-auth-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const databaseUrl = options.databaseUrl ?? (yield* TestDatabase.freshUrl())
    const baseUrl = `http://127.0.0.1:${port}`
    const env: Record<string, string | undefined> = {
      LATCHKEY_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      AUTHSVC_API_HOST: "127.0.0.1",
      AUTHSVC_API_PORT: String(port),
      AUTHSVC_SITE_URL: "http://localhost:3000",
      AUTHSVC_API_EXTERNAL_URL: baseUrl,
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
    return { port, baseUrl, dataDir, databaseUrl, env, config } satisfies Prepared
  })
