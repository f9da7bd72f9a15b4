import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Duration, Effect, Layer, LogLevel, Option, Redacted, Schedule } from "effect"
import type * as ClientMetadataFetcherHttp from "../../../adapters/clientmetadata/oauth/ClientMetadataFetcherHttp.js"
import * as Migrations from "../../../adapters/postgres/Migrations.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { SecretHasher } from "../../../application/ports/SecretHasher.js"
import type { TokenMint } from "../../../application/ports/TokenMint.js"
import type { OAuthConfig } from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../../../bootstrap/oauth/OAuthLayers.js"
import * as OAuthServer from "../../../bootstrap/oauth/OAuthServer.js"
import { ClientId } from "../../../domain/Ids.js"
import * as TestDatabase from "../TestDatabase.js"

export const introspectionToken = "introspection-secret-for-tests-0123456789"

/** A free loopback port; BASE_URL must be known before the server starts (it is our issuer). */
const freePort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

export interface RunningServer {
  readonly baseUrl: string
}

/**
 * Starts the real oauth service in this process: a fresh database on the run's PostgreSQL (or
 * embedded PGlite when there is none), migrated and seeded, the dev upstream (oidc-provider) on
 * loopback, and the HTTP server on a free port. Everything stops when the scope closes.
 */
export const start = (
  options: {
    readonly overrides?: Partial<OAuthConfig>
    readonly seed?: Effect.Effect<void, unknown, ClientRepository | TokenMint | SecretHasher>
    /** For a test's own metadata documents: the loopback allow-list and test CA of the fetcher. */
    readonly clientMetadata?: ClientMetadataFetcherHttp.Options
  } = {}
) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const sqlUrl = yield* TestDatabase.freshUrl()
    const config: OAuthConfig = {
      sqlUrl: Option.map(sqlUrl, (url: string) => Redacted.make(url)),
      dataDir,
      logLevel: LogLevel.Warning,
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      provider: "dev",
      upstreamClientId: Option.none(),
      upstreamClientSecret: Option.none(),
      issuerUrl: Option.none(),
      introspectionToken: Option.some(Redacted.make(introspectionToken)),
      cliClientId: "cli",
      registerRateLimit: { max: 10_000, window: Duration.hours(1) },
      rateLimitHeader: Option.none(),
      ...options.overrides
    }
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Migrations.run("oauth")
        yield* ManageClients.seedBuiltinCliClient(ClientId.make(config.cliClientId))
        if (options.seed !== undefined) yield* options.seed
      }).pipe(Effect.provide(OAuthLayers.core(config)))
    ).pipe(Effect.orDie)
    yield* Effect.forkScoped(
      Layer.launch(OAuthServer.serve(config, { clientMetadata: options.clientMetadata })).pipe(Effect.orDie)
    )
    const baseUrl = config.baseUrl
    yield* Effect.tryPromise(() => fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).pipe(
      Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30)))),
      Effect.orDie
    )
    return { baseUrl } satisfies RunningServer
  })
