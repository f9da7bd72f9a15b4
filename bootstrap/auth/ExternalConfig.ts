import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ProviderKey, providerKeys } from "../../application/auth/AuthSettings.js"
import * as IdTokenIssuer from "../../domain/auth/IdTokenIssuer.js"
import * as ConfigValues from "../ConfigValues.js"

/** One external provider's `EXTERNAL_<X>_*` variables, for a provider that is enabled. */
export interface ProviderConfig {
  readonly name: ProviderKey
  /**
   * Why the provider's sign-in page cannot be used although it is enabled, in Supabase Auth's
   * words (`missing OAuth secret`): a setting it needs is empty. Supabase Auth starts so, and
   * refuses such a sign-in when it is tried (ID-token sign-ins need no secret and still work).
   */
  readonly unusable: Option.Option<Unusable>
  /** The first of `_CLIENT_ID`'s ids: the one the sign-in page's flow uses; empty when unset. */
  readonly clientId: string
  /**
   * Every id of `_CLIENT_ID` (a comma list, as Supabase Auth reads it): the audiences an ID
   * token may name, so one provider serves a web client and native apps (Apple's Services ID
   * and bundle id).
   */
  readonly clientIds: ReadonlyArray<string>
  /** `_SECRET`; none when unset (`unusable` says so). */
  readonly secret: Option.Option<Redacted.Redacted>
  /** `_REDIRECT_URI`: our callback as registered at the provider; `API_EXTERNAL_URL/callback` by default. */
  readonly redirectUri: Option.Option<string>
  /** `_URL`: the provider's address where it has none of its own (Keycloak's realm, a GitLab host). */
  readonly url: Option.Option<URL>
  /** `_EMAIL_OPTIONAL`: sign-ins without an address are let through. */
  readonly emailOptional: boolean
  /** `_SKIP_NONCE_CHECK`: ID tokens without our nonce are taken (`signInWithIdToken` of some SDKs). */
  readonly skipNonceCheck: boolean
}

/** An empty setting an enabled provider needs: the variable, and Supabase Auth's reason. */
export interface Unusable {
  readonly variable: string
  readonly reason: string
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

/** A set `_REDIRECT_URI` or `_URL` of an enabled provider: an absolute http(s) URL. */
const checkedUrl = (
  name: string,
  value: Option.Option<string>
): Either.Either<Option.Option<URL>, ConfigError.ConfigError> =>
  Option.match(
    Option.filter(
      Option.map(value, (text) => text.trim()),
      (text) => text !== ""
    ),
    {
      onNone: () => Either.right(Option.none()),
      onSome: (text) => {
        const url = URL.canParse(text) ? new URL(text) : undefined
        return url !== undefined && (url.protocol === "https:" || url.protocol === "http:")
          ? Either.right(Option.some(url))
          : Either.left(ConfigValues.invalid(name, "expected an absolute http or https URL"))
      }
    }
  )

/**
 * One provider's settings. Only an enabled provider's are checked: the Supabase CLI writes every
 * provider of `config.toml`, enabled or not, and Supabase Auth reads none of a disabled one's.
 */
const one = (provider: ProviderKey) =>
  Config.all({
    enabled: ConfigValues.bool(variable(provider, "ENABLED"), false),
    clientId: Config.option(Config.string(variable(provider, "CLIENT_ID"))),
    secret: Config.option(Config.redacted(variable(provider, "SECRET"))),
    redirectUri: Config.option(Config.string(variable(provider, "REDIRECT_URI"))),
    url: Config.option(Config.string(variable(provider, "URL"))),
    emailOptional: ConfigValues.bool(variable(provider, "EMAIL_OPTIONAL"), false),
    skipNonceCheck: ConfigValues.bool(variable(provider, "SKIP_NONCE_CHECK"), false)
  }).pipe(
    Config.mapOrFail((fields): Either.Either<Option.Option<ProviderConfig>, ConfigError.ConfigError> => {
      if (!fields.enabled) return Either.right(Option.none())
      const redirectUri = checkedUrl(variable(provider, "REDIRECT_URI"), fields.redirectUri)
      const url = checkedUrl(variable(provider, "URL"), fields.url)
      if (Either.isLeft(redirectUri)) return Either.left(redirectUri.left)
      if (Either.isLeft(url)) return Either.left(url.left)
      const clientIds = Option.getOrElse(fields.clientId, () => "")
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== "")
      const secret = Option.filter(fields.secret, (value) => Redacted.value(value) !== "")
      // In the order Supabase Auth checks them when a sign-in starts.
      const unusable: Option.Option<Unusable> =
        clientIds.length === 0
          ? Option.some({ variable: variable(provider, "CLIENT_ID"), reason: "missing OAuth client ID" })
          : Option.isNone(secret)
            ? Option.some({ variable: variable(provider, "SECRET"), reason: "missing OAuth secret" })
            : needsUrl.has(provider) && Option.isNone(url.right)
              ? Option.some({
                  variable: variable(provider, "URL"),
                  reason: "unable to find URL for the Keycloak provider"
                })
              : Option.none()
      return Either.right(
        Option.some({
          name: provider,
          unusable,
          clientId: clientIds[0] ?? "",
          clientIds,
          secret,
          redirectUri: Option.map(redirectUri.right, (value) => value.toString()),
          url: url.right,
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
