import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { Secrets } from "../../../application/ports/Secrets.js"
import * as OAuthConfig from "../../../bootstrap/oauth/OAuthConfig.js"
import * as OAuthLayers from "../../../bootstrap/oauth/OAuthLayers.js"
import * as CliProcess from "../CliProcess.js"
import { freePort } from "../FreePort.js"
import * as TcpProxy from "../TcpProxy.js"
import * as TestDatabase from "../TestDatabase.js"
import { testCertificate } from "./DocumentServer.js"

export const introspectionToken = "introspection-secret-for-tests-0123456789"

export interface RunningServer {
  readonly baseUrl: string
  /** The process, with what it printed. */
  readonly process: CliProcess.Running
}

/**
 * Starts the built oauth service as its own process, as users run it, configured by environment
 * variables alone: a fresh database on the run's PostgreSQL (the embedded one when there is
 * none), `latchkey oauth migrate` run first (it seeds the CLI client), the dev upstream
 * (oidc-provider) on loopback, a free port. `seed` writes to the migrated database before the
 * service starts, as an operator would. Stopped with the scope.
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
     * PEM certificates the process trusts besides the system's (its own test CA), as an
     * operator does with `NODE_EXTRA_CA_CERTS`.
     */
    readonly extraCaCerts?: ReadonlyArray<string>
  } = {}
) =>
  Effect.gen(function* () {
    // A port of the caller's (`env.PORT`) when something must know it first: a proxy in front.
    const port = options.env?.PORT ?? String(yield* freePort)
    const dataDir = mkdtempSync(join(tmpdir(), "latchkey-e2e-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const sqlUrl = yield* TestDatabase.freshUrl()
    const caFile = join(dataDir, "extra-ca.pem")
    if (options.extraCaCerts !== undefined) writeFileSync(caFile, options.extraCaCerts.join("\n"))
    const env: Record<string, string | undefined> = {
      LATCHKEY_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      API_HOST: "127.0.0.1",
      PORT: port,
      BASE_URL: `http://127.0.0.1:${port}`,
      INTROSPECTION_TOKEN: introspectionToken,
      REGISTER_RATE_LIMIT: "10000/hour",
      SQL_URL: Option.getOrUndefined(sqlUrl),
      NODE_EXTRA_CA_CERTS: options.extraCaCerts === undefined ? undefined : caFile,
      ...options.env
    }
    const migrate = yield* CliProcess.spawnCli(["oauth", "migrate"], env, { cwd: dataDir })
    const migrated = yield* migrate.exited
    if (migrated !== 0)
      return yield* Effect.dieMessage(`oauth migrate failed:\n${migrate.lines().join("\n")}`)
    if (options.seed !== undefined) {
      const defined = new Map(
        Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]]))
      )
      const config = yield* Effect.orDie(
        Effect.withConfigProvider(OAuthConfig.database, ConfigProvider.fromMap(defined))
      )
      // The seed's own connection, closed before the service opens the database (the embedded
      // one serves one process at a time).
      yield* Effect.scoped(Effect.provide(options.seed, OAuthLayers.core(config))).pipe(Effect.orDie)
    }
    const process = yield* CliProcess.spawnCli(["oauth", "serve"], env, { cwd: dataDir })
    const baseUrl = `http://127.0.0.1:${port}`
    yield* CliProcess.waitUntilAnswering(process, `${baseUrl}/.well-known/oauth-authorization-server`)
    return { baseUrl, process } satisfies RunningServer
  })

/**
 * The service as deployed: behind a proxy that terminates TLS (the test's certificate), so its
 * pages are https and its BASE_URL says so. `publicUrl` is for the browser, which must be told
 * to trust the certificate; `baseUrl` reaches the service directly, for the test's own calls.
 */
export const startBehindTls = (options: Parameters<typeof start>[0] = {}) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const proxy = yield* TcpProxy.make({ host: "127.0.0.1", port }, { tls: testCertificate() })
    const publicUrl = `https://127.0.0.1:${proxy.port}`
    const running = yield* start({
      ...options,
      env: { ...options.env, PORT: String(port), BASE_URL: publicUrl }
    })
    return { ...running, publicUrl }
  })

/**
 * The service able to fetch from a test's document server: it is on loopback, which the
 * outbound guard refuses unless listed, and signed by the test's own CA, which the process
 * trusts as an operator makes it trust one.
 */
export const startReaching = (documents: { readonly cert: string }) =>
  start({ env: { OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1" }, extraCaCerts: [documents.cert] })
