import * as Either from "effect/Either"
import * as Option from "effect/Option"

/**
 * Which issuer an application's ID token of a provider must come from (`grant_type=id_token`),
 * as Supabase Auth decides it: one fixed issuer (Google, Facebook, Kakao, Snapchat, a Keycloak
 * realm, a custom OpenID provider), or — for Apple, which signs under two names, and Azure, whose
 * issuer names the user's tenant — the issuer the token itself names, if it is one of the
 * provider's. Either way the token is then checked against that issuer's published keys.
 */
export type Rule =
  | { readonly _tag: "Fixed"; readonly issuer: string }
  | {
      readonly _tag: "Detected"
      /** The provider as Supabase Auth's messages name it. */
      readonly label: string
      /** Issuers the provider's tokens may name. */
      readonly accepts: ReadonlyArray<RegExp>
      /** Issuers by which a request without a provider names this one. */
      readonly names: ReadonlyArray<RegExp>
    }

export const fixed = (issuer: string): Rule => ({ _tag: "Fixed", issuer })

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`)

export const appleIssuers = ["https://appleid.apple.com", "https://account.apple.com"] as const

export const apple: Rule = {
  _tag: "Detected",
  label: "Apple",
  accepts: appleIssuers.map(exactly),
  names: appleIssuers.map(exactly)
}

export const azure: Rule = {
  _tag: "Detected",
  label: "Azure",
  accepts: [/^https:\/\/login\.microsoftonline\.com\//, /^https:\/\/sts\.windows\.net\//],
  names: [/^https:\/\/login\.microsoftonline\.com\/[^/]+\/v2\.0\/?$/]
}

/**
 * Azure's rule for `EXTERNAL_AZURE_URL`: a URL that names one tenant takes that tenant's tokens
 * only (`<URL>/v2.0`); none, or the shared `common`, `organizations` and `consumers`, take any
 * tenant's, the issuer read from the token. Supabase Auth always reads it from the token.
 */
export const azureFor = (tenantUrl: Option.Option<string>): Rule =>
  Option.match(
    Option.filter(tenantUrl, (url) => !/\/(common|organizations|consumers)$/.test(url)),
    { onNone: () => azure, onSome: (url) => fixed(`${url}/v2.0`) }
  )

export const google = fixed("https://accounts.google.com")
export const facebook = fixed("https://www.facebook.com")
export const kakao = fixed("https://kauth.kakao.com")
export const snapchat = fixed("https://accounts.snapchat.com/accounts/oauth2/token")

/**
 * The rule of a built-in provider whose ID tokens are taken; `realm` is its `EXTERNAL_<X>_URL`
 * (Keycloak's realm, Azure's tenant) without a trailing slash. None for the providers whose ID
 * tokens Supabase Auth does not take.
 */
export const forProvider = (name: string, realm: Option.Option<string>): Option.Option<Rule> => {
  switch (name) {
    case "apple":
      return Option.some(apple)
    case "azure":
      return Option.some(azureFor(realm))
    case "google":
      return Option.some(google)
    case "facebook":
      return Option.some(facebook)
    case "kakao":
      return Option.some(kakao)
    case "snapchat":
      return Option.some(snapchat)
    case "keycloak":
      return Option.some(fixed(Option.getOrElse(realm, () => "")))
    default:
      return Option.none()
  }
}

/** The providers a request may name by issuer alone, in Supabase Auth's order. */
export const byIssuer = ["apple", "google", "azure", "facebook", "keycloak", "kakao", "snapchat"] as const

/** Whether a request that names only `issuer` means the provider of this rule. */
export const names = (rule: Rule, issuer: string): boolean =>
  rule._tag === "Fixed"
    ? issuer !== "" && rule.issuer === issuer
    : rule.names.some((name) => name.test(issuer))

export interface Refused {
  readonly _tag: "Refused"
  readonly message: string
}

const refused = (message: string): Either.Either<never, Refused> => Either.left({ _tag: "Refused", message })

/**
 * The issuer to check the token against. `requested` is the request's `issuer` (may be empty);
 * `named` the issuer the token names, read before any check (none: not a readable JWT).
 */
export const resolve = (
  rule: Rule,
  requested: string,
  named: Option.Option<string>
): Either.Either<string, Refused> => {
  if (rule._tag === "Fixed") return Either.right(rule.issuer)
  if (Option.isNone(named)) return refused(`Unable to detect issuer in ID token for ${rule.label} provider`)
  const issuer = named.value
  if (!rule.accepts.some((accepted) => accepted.test(issuer)))
    return refused(`Detected ID token issuer is not an ${rule.label} ID token issuer`)
  if (requested !== "" && requested !== issuer)
    return refused("Provided issuer does not match ID token issuer")
  return Either.right(issuer)
}
