import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as CachedClientRepository from "../../adapters/cache/oauth/CachedClientRepository.js"
import * as ClientKeysHttp from "../../adapters/clientmetadata/oauth/ClientKeysHttp.js"
import * as ClientMetadataFetcherHttp from "../../adapters/clientmetadata/oauth/ClientMetadataFetcherHttp.js"
import * as ErrorResponse from "../../adapters/http/oauth/ErrorResponse.js"
import { OAuthHttpConfig } from "../../adapters/http/oauth/OAuthHttpConfig.js"
import * as Routes from "../../adapters/http/oauth/Routes.js"
import * as Server from "../../adapters/http/Server.js"
import * as ProviderCatalog from "../../adapters/idp/ProviderCatalog.js"
import * as Oidc from "../../adapters/idp/providers/oidc.js"
import * as PrivateAddresses from "../../adapters/outbound/PrivateAddresses.js"
import * as DatabaseProbePg from "../../adapters/postgres/DatabaseProbePg.js"
import * as DatabaseUnavailable from "../../adapters/postgres/DatabaseUnavailable.js"
import * as Migrations from "../../adapters/postgres/Migrations.js"
import { OAuthSettings } from "../../application/oauth/OAuthSettings.js"
import { reapIdleClients } from "../../application/oauth/ReapIdleClients.js"
import { UpstreamIdentityProvider } from "../../application/ports/UpstreamIdentityProvider.js"
import { ClientId } from "../../domain/Ids.js"
import * as OutboundReach from "../OutboundReach.js"
import * as Telemetry from "../Telemetry.js"
import * as Version from "../Version.js"
import * as OAuthConfig from "./OAuthConfig.js"
import * as OAuthLayers from "./OAuthLayers.js"

/** The variable that sets the oauth service's port. */
export const portVariables = "PORT"

/**
 * The upstream: one from the catalog, or the dev upstream — an embedded OpenID provider on an
 * ephemeral loopback port, registered with our callback, with a random client secret.
 */
const upstream = (config: OAuthConfig.OAuthConfig) => {
  const callbackUrl = `${config.baseUrl}/callback`
  if (config.provider === "dev") {
    return Layer.scoped(
      UpstreamIdentityProvider,
      Effect.gen(function* () {
        // Loaded only here: production upstreams never need oidc-provider.
        const DevUpstream = yield* Effect.promise(() => import("../../adapters/idp/DevUpstream.js"))
        const clientSecret = crypto.randomUUID() + crypto.randomUUID()
        const dev = yield* DevUpstream.start({
          host: "127.0.0.1",
          clients: [{ client_id: "latchkey-dev", client_secret: clientSecret, redirect_uris: [callbackUrl] }]
        })
        yield* Effect.logInfo(`dev upstream at ${dev.issuer.href} (any email signs in)`)
        return yield* Oidc.make("dev", {
          clientId: "latchkey-dev",
          clientSecret: Redacted.make(clientSecret),
          issuerUrl: dev.issuer,
          // Started here on loopback: the guard lets calls reach this one address besides the
          // operator's.
          allowedPrivateAddresses: PrivateAddresses.including(
            config.allowedPrivateAddresses,
            dev.issuer.hostname
          )
        })
      })
    )
  }
  return ProviderCatalog.layer(config.provider, {
    clientId: Option.getOrElse(config.upstreamClientId, () => ""),
    clientSecret: Option.getOrElse(config.upstreamClientSecret, () => Redacted.make("")),
    allowedPrivateAddresses: config.allowedPrivateAddresses,
    ...Option.match(config.issuerUrl, { onNone: () => ({}), onSome: (url) => ({ issuerUrl: new URL(url) }) })
  })
}

/** The reaper runs hourly in-process; the job lock keeps it to one instance at a time. */
const reaper = reapIdleClients.pipe(
  Effect.catchAllCause((cause) => Effect.logError("reaper failed", cause)),
  Effect.repeat(Schedule.spaced(Duration.hours(1))),
  Effect.delay(Duration.minutes(1))
)

/**
 * Every token request looks its client up; a client deleted by another process (the CLI,
 * another instance) is refused by this one within these 5 seconds.
 */
const clientCache = CachedClientRepository.layer({
  timeToLive: "5 seconds",
  capacity: CachedClientRepository.maxClients
})

/** What only tests (and `latchkey dev`'s defaults) set; `latchkey oauth serve` passes nothing. */
export interface ServeOptions {
  /** The metadata-document fetcher's test options: a test CA, a shorter time limit. */
  readonly clientMetadata?: Pick<ClientMetadataFetcherHttp.Options, "ca" | "timeout"> | undefined
  /**
   * Where `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` came from when the environment did not set it
   * (`latchkey dev`'s default), for the start-up line that lists it.
   */
  readonly privateAddressesSource?: string | undefined
  /** Spans go here instead of to an OTLP collector. */
  readonly spanProcessor?: SpanProcessor | undefined
  /** How long requests in flight may take to finish once shutdown starts. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /** How long a statement may wait for a connection, and for its answer. */
  readonly databaseTimeouts?: OAuthLayers.Timeouts | undefined
}

/**
 * A request waits at most this long for the database's answer: a database that stopped
 * answering costs a 503, not a request held forever. No statement of a request comes near it.
 */
const queryTimeout = Duration.seconds(30)

/** Bodies of every oauth endpoint are small forms or JSON documents. */
const maxBodyBytes = 64 * 1024

const serviceName = "latchkey-oauth"

/** `latchkey oauth serve`: the HTTP server on the configured host and port, until interrupted. */
export const serve = (config: OAuthConfig.OAuthConfig, options: ServeOptions = {}) => {
  const core = OAuthLayers.core(config, { queryTimeout, ...options.databaseTimeouts })
  const settings = Layer.succeed(OAuthSettings, {
    issuer: config.baseUrl,
    callbackUrl: `${config.baseUrl}/callback`,
    cliClientId: ClientId.make(config.cliClientId)
  })
  const http = Layer.succeed(OAuthHttpConfig, {
    version: Version.version,
    introspectionToken: config.introspectionToken,
    registerLimit: config.registerRateLimit,
    scopesSupported: config.scopesSupported
  })
  const server = Layer.scopedDiscard(
    Server.serve({
      service: "oauth",
      host: config.host,
      port: config.port,
      portVariables,
      routes: Routes.routes,
      problems: ErrorResponse.problems,
      cors: Routes.cors,
      maxBodyBytes,
      requestIdHeader: config.telemetry.requestIdHeader,
      clientIpHeaders: Option.toArray(config.rateLimitHeader),
      metrics: Option.isSome(config.telemetry.metrics),
      shutdownTimeout: options.shutdownTimeout ?? Server.defaultShutdownTimeout,
      isUnavailable: DatabaseUnavailable.is
    })
  )
  const background = Layer.scopedDiscard(Effect.forkScoped(reaper))
  const outbound = Layer.scopedDiscard(
    OutboundReach.announce(
      {
        service: "oauth",
        variable: OAuthConfig.allowedPrivateAddressesVariable,
        allowed: config.allowedPrivateAddresses,
        source: options.privateAddressesSource
      },
      config.provider === "oidc"
        ? Option.toArray(Option.map(config.issuerUrl, (url) => ({ variable: "OAUTH2_ISSUER_URL", url })))
        : []
    )
  )
  const checked = Layer.effectDiscard(Migrations.ensureCurrent("oauth"))
  return Layer.mergeAll(server, background, outbound).pipe(
    // Metrics come up before the server, so that its first requests are counted.
    Layer.provide(
      Layer.mergeAll(
        settings,
        http,
        upstream(config),
        ClientMetadataFetcherHttp.layer({
          ...options.clientMetadata,
          allowedPrivateAddresses: config.allowedPrivateAddresses
        }),
        // The keys of metadata-document clients that sign: fetched under the same guard.
        ClientKeysHttp.layer({
          ...options.clientMetadata,
          allowedPrivateAddresses: config.allowedPrivateAddresses
        }),
        clientCache,
        DatabaseProbePg.layer,
        Telemetry.metrics(config.telemetry, { serviceName })
      )
    ),
    Layer.provide(checked),
    Layer.provideMerge(core),
    Layer.provide(
      Telemetry.layer(config.telemetry, { serviceName, prefix: "", spanProcessor: options.spanProcessor })
    )
  )
}
