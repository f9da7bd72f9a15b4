import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { ProviderName } from "../../adapters/idp/ProviderCatalog.js"
import type * as PrivateAddresses from "../../adapters/outbound/PrivateAddresses.js"
import type { Limit } from "../../application/ports/RateLimiter.js"
import * as ConfigValues from "../ConfigValues.js"
import * as TelemetryConfig from "../TelemetryConfig.js"

export type UpstreamKind = ProviderName | "dev"

/** The oauth service's configuration, names exactly as docs/configuration.md lists them. */
export interface OAuthConfig {
  readonly sqlUrl: Option.Option<Redacted.Redacted>
  /**
   * `SQL_PREPARED_STATEMENTS`: the hot statements prepared by name (true); false behind a
   * pooler in transaction mode (PgBouncer, Supavisor on 6543, RDS Proxy).
   */
  readonly preparedStatements: boolean
  readonly dataDir: string
  readonly logLevel: LogLevel.LogLevel
  /** `API_HOST`: the address to listen on, as the auth service's setting of that name. */
  readonly host: string
  readonly port: number
  readonly baseUrl: string
  readonly provider: UpstreamKind
  readonly upstreamClientId: Option.Option<string>
  readonly upstreamClientSecret: Option.Option<Redacted.Redacted>
  readonly issuerUrl: Option.Option<string>
  readonly introspectionToken: Option.Option<Redacted.Redacted>
  readonly cliClientId: string
  readonly registerRateLimit: Limit
  readonly rateLimitHeader: Option.Option<string>
  /** `SCOPES_SUPPORTED`: the scopes the metadata document advertises. */
  readonly scopesSupported: ReadonlyArray<string>
  /**
   * `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`: the private addresses outbound calls (the upstream,
   * client metadata documents) may reach, over https or plain http; none by default.
   */
  readonly allowedPrivateAddresses: PrivateAddresses.AllowList
  readonly telemetry: TelemetryConfig.TelemetryConfig
}

/** What `latchkey oauth migrate` and the operator commands need: only the database. */
export const database = Config.all({
  sqlUrl: Config.option(ConfigValues.postgresUrl("SQL_URL")),
  preparedStatements: ConfigValues.bool("SQL_PREPARED_STATEMENTS", true),
  dataDir: ConfigValues.dataDir("oauth"),
  logLevel: ConfigValues.logLevel
})

export const cliClientId = ConfigValues.clientId("CLI_CLIENT_ID", "cli")

/** The variable of the private addresses outbound calls may reach. */
export const allowedPrivateAddressesVariable = "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES"

const fields = Config.all({
  sqlUrl: Config.option(ConfigValues.postgresUrl("SQL_URL")),
  preparedStatements: ConfigValues.bool("SQL_PREPARED_STATEMENTS", true),
  dataDir: ConfigValues.dataDir("oauth"),
  logLevel: ConfigValues.logLevel,
  host: ConfigValues.listenHost("API_HOST", "0.0.0.0"),
  port: ConfigValues.portNamed("PORT", 8080),
  baseUrl: ConfigValues.publicUrl("BASE_URL", "http://localhost:8080"),
  // The upstreams the oauth service documents: the catalog also holds providers whose
  // callbacks it does not take (Apple's form_post, Twitter's OAuth 1.0a handshake).
  provider: Config.literal(
    "github",
    "google",
    "oidc",
    "dev"
  )("OAUTH2_PROVIDER").pipe(Config.withDefault("dev")),
  upstreamClientId: Config.option(Config.string("OAUTH2_CLIENT_ID")),
  upstreamClientSecret: Config.option(Config.redacted("OAUTH2_CLIENT_SECRET")),
  issuerUrl: Config.option(ConfigValues.issuerUrl("OAUTH2_ISSUER_URL", allowedPrivateAddressesVariable)),
  introspectionToken: Config.option(ConfigValues.secret("INTROSPECTION_TOKEN", 32)),
  cliClientId,
  registerRateLimit: ConfigValues.rateLimit("REGISTER_RATE_LIMIT", "20/hour"),
  rateLimitHeader: Config.option(ConfigValues.headerName("RATE_LIMIT_HEADER")),
  scopesSupported: ConfigValues.list("SCOPES_SUPPORTED"),
  allowedPrivateAddresses: ConfigValues.privateAddresses(allowedPrivateAddressesVariable),
  telemetry: TelemetryConfig.read("")
})

/** Rules that tie variables together, each reported on the variable to fix. */
const crossCheck = (config: OAuthConfig): Either.Either<OAuthConfig, ConfigError.ConfigError> => {
  const problems: Array<ConfigError.ConfigError> = []
  if (config.provider === "dev") {
    if (!ConfigValues.isLoopbackUrl(config.baseUrl)) {
      problems.push(
        ConfigValues.invalid("BASE_URL", "the dev upstream signs anyone in: it needs a loopback BASE_URL")
      )
    }
  } else {
    if (Option.isNone(config.upstreamClientId)) {
      problems.push(
        ConfigValues.invalid("OAUTH2_CLIENT_ID", `is required with OAUTH2_PROVIDER=${config.provider}`)
      )
    }
    if (Option.isNone(config.upstreamClientSecret)) {
      problems.push(
        ConfigValues.invalid("OAUTH2_CLIENT_SECRET", `is required with OAUTH2_PROVIDER=${config.provider}`)
      )
    }
  }
  if (config.provider === "oidc" && Option.isNone(config.issuerUrl)) {
    problems.push(ConfigValues.invalid("OAUTH2_ISSUER_URL", "is required with OAUTH2_PROVIDER=oidc"))
  }
  if (
    Option.isSome(config.issuerUrl) &&
    !ConfigValues.plainHttpWorks(config.issuerUrl.value, config.allowedPrivateAddresses)
  ) {
    problems.push(
      ConfigValues.invalid("OAUTH2_ISSUER_URL", ConfigValues.issuerExpected(allowedPrivateAddressesVariable))
    )
  }
  const [first, ...rest] = problems
  if (first === undefined) return Either.right(config)
  return Either.left(rest.reduce<ConfigError.ConfigError>((all, next) => ConfigError.And(all, next), first))
}

/** Everything `latchkey oauth serve` needs, validated together. */
export const server: Config.Config<OAuthConfig> = Config.mapOrFail(fields, crossCheck)
