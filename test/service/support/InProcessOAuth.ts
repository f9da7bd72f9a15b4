import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Migrations from "../../../adapters/postgres/Migrations.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { Secrets } from "../../../application/ports/Secrets.js"
import * as OAuthConfig from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../../../bootstrap/oauth/OAuthLayers.js"
import * as OAuthServer from "../../../bootstrap/oauth/OAuthServer.js"
import { ClientId } from "../../../domain/Ids.js"
import { freePort } from "../../support/FreePort.js"
import { introspectionToken } from "../../support/oauth/OAuthServerHarness.js"
import * as TestDatabase from "../../support/TestDatabase.js"

export { introspectionToken }

export interface RunningServer {
  readonly baseUrl: string
}

/**
 * Starts the oauth service in this process, as `latchkey oauth serve` assembles it, with what no
 * variable can set: spans collected in memory, database time-outs of a second, a configuration
 * changed beyond what its variables express. The service tests under test/service/ use it; the
 * end-to-end tests start the built executable (test/support/oauth/OAuthServerHarness.ts).
 * Otherwise: a fresh database on the run's PostgreSQL (or embedded PGlite when there is none),
 * migrated and seeded, the dev upstream (oidc-provider) on loopback, and the HTTP server on a
 * free port. Everything stops when the scope closes.
 */
export const start = (
  options: {
    /**
     * Environment variables over the harness's own (a fresh database, a free port, a loopback
     * BASE_URL, an introspection secret, a generous registration limit); `undefined` unsets one.
     */
    readonly env?: Readonly<Record<string, string | undefined>>
    readonly seed?: Effect.Effect<void, unknown, ClientRepository | Secrets>
    /**
     * For a test's own metadata documents: the fetcher's test CA and time limit (their loopback
     * address is allowed as an operator allows it, by `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`).
     */
    readonly clientMetadata?: OAuthServer.ServeOptions["clientMetadata"]
    /** Changes to the configuration that no environment variable can express. */
    readonly configure?: (config: OAuthConfig.OAuthConfig) => OAuthConfig.OAuthConfig
    /** Spans of the run, for tests of the telemetry. */
    readonly spanProcessor?: SpanProcessor
    /** Shorter waits for the database than production's, for tests of a database that stalls. */
    readonly databaseTimeouts?: OAuthLayers.Timeouts
    /**
     * Puts something between the server and its database (a proxy that a test can stop): given
     * the fresh database's URL, the URL the server uses instead. Needs a PostgreSQL server in
     * the run (`TestDatabase.isEmbedded("server")` is false).
     */
    readonly databaseVia?: (database: URL) => Effect.Effect<URL, never, Scope.Scope>
  } = {}
) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const fresh = yield* TestDatabase.freshUrl()
    const via = options.databaseVia
    const sqlUrl =
      via === undefined
        ? fresh
        : Option.isNone(fresh)
          ? yield* Effect.dieMessage("databaseVia needs a PostgreSQL server in the run")
          : Option.some((yield* via(new URL(fresh.value))).toString())
    const env = new Map<string, string>([
      ["LATCHKEY_DATA_DIR", dataDir],
      ["LOG_LEVEL", "warn"],
      ["API_HOST", "127.0.0.1"],
      ["PORT", String(port)],
      ["BASE_URL", `http://127.0.0.1:${port}`],
      ["INTROSPECTION_TOKEN", introspectionToken],
      ["REGISTER_RATE_LIMIT", "10000/hour"]
    ])
    if (Option.isSome(sqlUrl)) env.set("SQL_URL", sqlUrl.value)
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) env.delete(name)
      else env.set(name, value)
    }
    const parsed = yield* Effect.orDie(
      Effect.withConfigProvider(OAuthConfig.server, ConfigProvider.fromMap(env))
    )
    const config = options.configure === undefined ? parsed : options.configure(parsed)
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Migrations.run("oauth")
        yield* ManageClients.seedBuiltinCliClient(ClientId.make(config.cliClientId))
        if (options.seed !== undefined) yield* options.seed
      }).pipe(Effect.provide(OAuthLayers.core(config)))
    ).pipe(Effect.orDie)
    yield* Effect.forkScoped(
      Layer.launch(
        OAuthServer.serve(config, {
          clientMetadata: options.clientMetadata,
          spanProcessor: options.spanProcessor,
          databaseTimeouts: options.databaseTimeouts
        })
      ).pipe(Effect.orDie)
    )
    const baseUrl = config.baseUrl
    yield* Effect.tryPromise(() => fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).pipe(
      Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
      Effect.orDie
    )
    return { baseUrl } satisfies RunningServer
  })
