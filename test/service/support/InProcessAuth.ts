import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { CaptchaSettings } from "../../../application/auth/Captcha.js"
import type { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import type { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as AuthServer from "../../../bootstrap/auth/AuthServer.js"
import { jwtSecret } from "../../support/auth/AuthServerHarness.js"
import { freePort } from "../../support/FreePort.js"
import * as TestDatabase from "../../support/TestDatabase.js"

export { jwtSecret }

export interface RunningAuth {
  readonly baseUrl: string
  /** The instance's configuration, to run operator use cases on its database. */
  readonly config: AuthConfig.AuthConfig
  /** The database URL the instance uses (none: embedded), for starting more instances on it. */
  readonly databaseUrl: Option.Option<string>
}

/**
 * Starts the auth service in this process, as `latchkey auth serve` assembles it, with what no
 * variable can set: a real SMS gateway or captcha adapter pointed at a local fake of its API,
 * providers' endpoints at local fakes, how long stored signing keys are reused. The service
 * tests under test/service/ use it; the end-to-end tests start the built executable
 * (test/support/auth/AuthServerHarness.ts). Otherwise as `latchkey auth serve`: a fresh database
 * on the run's PostgreSQL (embedded PGlite when there is none), migrations at start, a signing
 * key created on first start, the HTTP server on a free loopback port. Stops with the scope.
 */
export const start = (
  options: {
    /** Variables over the harness's own; `undefined` unsets one. */
    readonly env?: Readonly<Record<string, string | undefined>>
    /** Another instance's database, to start a second instance beside it. */
    readonly databaseUrl?: Option.Option<string>
    /** How long the instance reuses the stored signing keys it read (AuthServer.ServeOptions). */
    readonly keyCacheLifetime?: Duration.DurationInput
    /** The SMS gateway, over the one the variables name: a real adapter pointed at a local fake. */
    readonly smsSender?: Layer.Layer<SmsSender>
    /** The port to listen on, chosen beforehand (an upstream must know our callback first). */
    readonly port?: number
    /** Captcha protection: a real provider adapter pointed at a local fake. */
    readonly captcha?: Layer.Layer<CaptchaSettings | CaptchaVerifier>
    /** A local fake's origin per provider name: every endpoint of that provider goes there. */
    readonly providerOrigins?: Readonly<Record<string, URL>>
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
    const variables = AuthEnvironment.merge(Option.none(), env)
    const config = yield* Effect.orDie(
      Effect.withConfigProvider(AuthConfig.server, AuthEnvironment.provider(variables))
    )
    yield* Effect.forkScoped(
      Layer.launch(
        AuthServer.serve(config, {
          keyCacheLifetime: options.keyCacheLifetime,
          smsSender: options.smsSender,
          captcha: options.captcha,
          providerOrigins: options.providerOrigins
        })
      ).pipe(Effect.orDie)
    )
    const baseUrl = `http://127.0.0.1:${port}`
    yield* Effect.tryPromise(() => fetch(`${baseUrl}/health`)).pipe(
      Effect.filterOrFail((response) => response.ok),
      Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
      Effect.orDie
    )
    return { baseUrl, config, databaseUrl } satisfies RunningAuth
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
