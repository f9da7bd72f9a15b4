import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { CaptchaSettings } from "../../../application/auth/Captcha.js"
import type { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import type { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import type * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthServer from "../../../bootstrap/auth/AuthServer.js"
import * as AuthServerEnvironment from "../../support/auth/AuthServerEnvironment.js"
import * as TestDatabase from "../../support/TestDatabase.js"

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
  options: AuthServerEnvironment.Options & {
    /** How long the instance reuses the stored signing keys it read (AuthServer.ServeOptions). */
    readonly keyCacheLifetime?: Duration.DurationInput
    /** The SMS gateway, over the one the variables name: a real adapter pointed at a local fake. */
    readonly smsSender?: Layer.Layer<SmsSender>
    /** Captcha protection: a real provider adapter pointed at a local fake. */
    readonly captcha?: Layer.Layer<CaptchaSettings | CaptchaVerifier>
    /** A local fake's origin per provider name: every endpoint of that provider goes there. */
    readonly providerOrigins?: Readonly<Record<string, URL>>
    /** The time the instance reads (its Clock), over the real one: `standingClock`. */
    readonly clock?: Clock.Clock
  } = {}
) =>
  Effect.gen(function* () {
    const { baseUrl, config, databaseUrl } = yield* AuthServerEnvironment.prepare(options)
    yield* Effect.forkScoped(
      Layer.launch(
        AuthServer.serve(config, {
          keyCacheLifetime: options.keyCacheLifetime,
          smsSender: options.smsSender,
          captcha: options.captcha,
          providerOrigins: options.providerOrigins
        })
      ).pipe(Effect.orDie, (launched) =>
        options.clock === undefined ? launched : Effect.withClock(launched, options.clock)
      )
    )
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

/**
 * A clock whose time stands at `at` while its sleeps take real time: for a test whose answers
 * depend on windows of time (rate limits counted in fixed windows), so that no window can end
 * between two of its requests however slowly they run.
 */
export const standingClock = (at: Date): Clock.Clock => {
  const real = Clock.make()
  const millis = at.getTime()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    currentTimeMillis: Effect.succeed(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
}
