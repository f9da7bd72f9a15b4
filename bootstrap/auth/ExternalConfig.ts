import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { type ProviderKey, providerKeys } from "../../application/auth/AuthSettings.js"
import * as IdTokenIssuer from "../../domain/auth/IdTokenIssuer.js"
import * as ConfigValues from "../ConfigValues.js"

/** One external provider's `EXTERNAL_<X>_*` variables, for a provider that is enabled. */
export interface ProviderConfig {
  readonly name: ProviderKey
  /** The first of `_CLIENT_ID`'s ids: the one the sign-in page's flow uses. */
  readonly clientId: string
  /**
   * Every id of `_CLIENT_ID` (a comma list, as Supabase Auth reads it): the audiences an ID
   * token may name, so one provider serves a web client and native apps (Apple's Services ID
   * and bundle id).
   */
  readonly clientIds: ReadonlyArray<string>
  readonly secret: Redacted.Redacted
  /** `_REDIRECT_URI`: our callback as registered at the provider; `API_EXTERNAL_URL/callback` by default. */
  readonly redirectUri: Option.Option<string>
  /** `_URL`: the provider's address where it has none of its own (Keycloak's realm, a GitLab host). */
  readonly url: Option.Option<URL>
  /** `_EMAIL_OPTIONAL`: sign-ins without an address are let through. */
  readonly emailOptional: boolean
  /** `_SKIP_NONCE_CHECK`: ID tokens without our nonce are taken (`signInWithIdToken` of some SDKs). */
  readonly skipNonceCheck: boolean
}

/** Providers whose address is the operator's to give: no default exists. */
const needsUrl: ReadonlySet<ProviderKey> = new Set(["keycloak"])

const variable = (provider: ProviderKey, setting: string) =>
  `AUTHSVC_EXTERNAL_${provider.toUpperCase()}_${setting}`

/** The settings every provider takes, as Supabase Auth names them. */
export const variables: ReadonlyArray<string> = providerKeys.flatMap((provider) =>
  ["ENABLED", "CLIENT_ID", "SECRET", "REDIRECT_URI", "URL", "EMAIL_OPTIONAL", "SKIP_NONCE_CHECK"].map(
    (setting) => variable(provider, setting)
  )
)

const httpUrl = (name: string) =>
  ConfigValues.check(name, Config.string(name), (value) => {
    try {
      const url = new URL(value.trim())
      return url.protocol === "https:" || url.protocol === "http:"
        ? Either.right(url)
        : Either.left("expected an absolute http or https URL")
    } catch {
      return Either.left("expected an absolute http or https URL")
    }
  })

const one = (provider: ProviderKey) =>
  Config.all({
    enabled: ConfigValues.bool(variable(provider, "ENABLED"), false),
    clientId: Config.option(Config.string(variable(provider, "CLIENT_ID"))),
    secret: Config.option(Config.redacted(variable(provider, "SECRET"))),
    redirectUri: Config.option(httpUrl(variable(provider, "REDIRECT_URI"))),
    url: Config.option(httpUrl(variable(provider, "URL"))),
    emailOptional: ConfigValues.bool(variable(provider, "EMAIL_OPTIONAL"), false),
    skipNonceCheck: ConfigValues.bool(variable(provider, "SKIP_NONCE_CHECK"), false)
  }).pipe(
    Config.mapOrFail((fields): Either.Either<Option.Option<ProviderConfig>, ConfigError.ConfigError> => {
      if (!fields.enabled) return Either.right(Option.none())
      const clientIds = Option.getOrElse(fields.clientId, () => "")
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== "")
      const clientId = Option.fromNullable(clientIds[0])
      if (Option.isNone(clientId)) {
        return Either.left(
          ConfigValues.invalid(
            variable(provider, "CLIENT_ID"),
            `is required with ${variable(provider, "ENABLED")}`
          )
        )
      }
      if (Option.isNone(fields.secret)) {
        return Either.left(
          ConfigValues.invalid(
            variable(provider, "SECRET"),
            `is required with ${variable(provider, "ENABLED")}`
          )
        )
      }
      if (needsUrl.has(provider) && Option.isNone(fields.url)) {
        return Either.left(
          ConfigValues.invalid(
            variable(provider, "URL"),
            `is required with ${variable(provider, "ENABLED")}: the realm's URL`
          )
        )
      }
      return Either.right(
        Option.some({
          name: provider,
          clientId: clientId.value,
          clientIds,
          secret: fields.secret.value,
          redirectUri: Option.map(fields.redirectUri, (url) => url.toString()),
          url: fields.url,
          emailOptional: fields.emailOptional,
          skipNonceCheck: fields.skipNonceCheck
        })
      )
    })
  )

/** The enabled external providers, each checked to have what it needs. */
export const providers: Config.Config<ReadonlyArray<ProviderConfig>> = Config.all(providerKeys.map(one)).pipe(
  Config.map((all) => all.flatMap((entry) => (Option.isSome(entry) ? [entry.value] : [])))
)

/**
 * Which ID tokens of `provider` an application may sign in with (IdTokenIssuer): Keycloak's are
 * its realm's (`EXTERNAL_KEYCLOAK_URL`); none for the providers whose ID tokens are not taken.
 */
export const idTokenIssuer = (provider: ProviderConfig): Option.Option<IdTokenIssuer.Rule> =>
  IdTokenIssuer.forProvider(
    provider.name,
    Option.map(provider.url, (value) => value.href.replace(/\/+$/, ""))
  )
