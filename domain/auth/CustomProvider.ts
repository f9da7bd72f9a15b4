import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Timestamp } from "../Timestamp.js"

/**
 * A provider an operator adds at run time through the admin API (`/admin/custom-providers`), as
 * Supabase Auth allows: any OpenID provider by its issuer (`oidc`, found through discovery) or
 * any OAuth 2.0 provider by its three endpoints (`oauth2`). Applications name it by its
 * identifier, `custom:<name>`, wherever they name a provider (`signInWithOAuth`,
 * `signInWithIdToken`, `linkIdentity`), and identities record that identifier.
 */

export const ProviderType = Schema.Literal("oauth2", "oidc")
export type ProviderType = typeof ProviderType.Type

/** What an OpenID provider's discovery document said when the provider was saved. */
export class Discovery extends Schema.Class<Discovery>("Discovery")({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String,
  userinfo_endpoint: Schema.optional(Schema.String),
  jwks_uri: Schema.String,
  scopes_supported: Schema.optional(Schema.Array(Schema.String)),
  response_types_supported: Schema.optional(Schema.Array(Schema.String)),
  grant_types_supported: Schema.optional(Schema.Array(Schema.String)),
  subject_types_supported: Schema.optional(Schema.Array(Schema.String)),
  /** Kept to pick how the client authenticates at the token endpoint; not shown by the admin API. */
  token_endpoint_auth_methods_supported: Schema.optional(Schema.Array(Schema.String))
}) {}

const Strings = Schema.Array(Schema.String)
/** `attribute_mapping`: a target claim → the source claim's name, or a fixed value. */
export const AttributeMapping = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export const AuthorizationParams = Schema.Record({ key: Schema.String, value: Schema.String })

export class CustomProvider extends Schema.Class<CustomProvider>("CustomProvider")({
  id: Schema.UUID,
  providerType: ProviderType,
  /** `custom:<name>`: the provider key applications use and identities record. */
  identifier: Schema.String,
  name: Schema.String,
  clientId: Schema.String,
  /**
   * Presented to the provider at every code exchange, so never a digest: as kept at rest, sealed
   * under the operator's key when secrets are encrypted at rest (opened where it is presented),
   * else as given. Never shown.
   */
  clientSecret: Schema.Redacted(Schema.String),
  /** Further audiences its ID tokens may name (a mobile app's own client id). */
  acceptableClientIds: Strings,
  scopes: Strings,
  pkceEnabled: Schema.Boolean,
  attributeMapping: AttributeMapping,
  /** Claims of the provider copied as they are into the identity's `custom_claims`. */
  customClaimsAllowlist: Strings,
  /** Fixed parameters of every authorization request (`prompt`, `hd`, …). */
  authorizationParams: AuthorizationParams,
  enabled: Schema.Boolean,
  emailOptional: Schema.Boolean,
  issuer: Schema.OptionFromNullOr(Schema.String),
  discoveryUrl: Schema.OptionFromNullOr(Schema.String),
  skipNonceCheck: Schema.Boolean,
  discovery: Schema.OptionFromNullOr(Discovery),
  authorizationUrl: Schema.OptionFromNullOr(Schema.String),
  tokenUrl: Schema.OptionFromNullOr(Schema.String),
  userinfoUrl: Schema.OptionFromNullOr(Schema.String),
  jwksUri: Schema.OptionFromNullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/**
 * The admin API's body, as it arrived (absent fields are `undefined`); checked here, field by
 * field, in Supabase Auth's order and words.
 */
export interface Params {
  readonly providerType?: string | undefined
  readonly identifier?: string | undefined
  readonly name?: string | undefined
  readonly clientId?: string | undefined
  /** The client secret's text; empty when not given. */
  readonly clientSecret?: string | undefined
  readonly acceptableClientIds?: ReadonlyArray<string> | undefined
  readonly scopes?: ReadonlyArray<string> | undefined
  readonly pkceEnabled?: boolean | undefined
  readonly attributeMapping?: Readonly<Record<string, unknown>> | undefined
  readonly customClaimsAllowlist?: ReadonlyArray<string> | undefined
  readonly authorizationParams?: Readonly<Record<string, unknown>> | undefined
  readonly enabled?: boolean | undefined
  readonly emailOptional?: boolean | undefined
  readonly issuer?: string | undefined
  readonly discoveryUrl?: string | undefined
  readonly skipNonceCheck?: boolean | undefined
  readonly authorizationUrl?: string | undefined
  readonly tokenUrl?: string | undefined
  readonly userinfoUrl?: string | undefined
  readonly jwksUri?: string | undefined
}

/** Why a body is refused: Supabase Auth's `validation_failed` message. */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly message: string
}

const invalid = (message: string): Either.Either<never, Invalid> => Either.left({ _tag: "Invalid", message })

export const prefix = "custom:"

/**
 * What an identifier may be (Supabase Auth's table constraint): 2 to 50 characters of lower-case
 * letters, digits, `:` and `-`, starting and ending with a letter or digit.
 */
const identifierPattern = /^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$/

/** Whether `name` names a custom provider rather than one of the built-in ones. */
export const isCustom = (name: string): boolean => name.startsWith(prefix)

/** The identifier of a path (`/admin/custom-providers/{identifier}`), as Supabase Auth checks it. */
export const checkIdentifier = (identifier: string): Either.Either<string, Invalid> => {
  if (identifier === "") return invalid("identifier is required")
  if (!isCustom(identifier))
    return invalid(`identifier must start with 'custom:' prefix, e.g. 'custom:${identifier}'`)
  return Either.right(identifier)
}

/**
 * Parameters of the authorization request that are ours to set: a stored value could swap the
 * callback, pin the state or replay a nonce.
 */
export const reservedParameters: ReadonlyArray<string> = [
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "code_verifier",
  "nonce"
]

/** Fields of a user a provider's claims may never set: they decide access, not identity. */
export const protectedTargets: ReadonlyArray<string> = [
  "id",
  "aud",
  "role",
  "app_metadata",
  "created_at",
  "updated_at",
  "confirmed_at",
  "email_confirmed_at",
  "phone_confirmed_at",
  "email_verified",
  "phone_verified",
  "banned_until",
  "is_super_admin"
]

const goQuote = (text: string) => JSON.stringify(text)

/** Checks the three maps and lists both creation and update take, where given. */
export const checkMaps = (params: Params): Either.Either<void, Invalid> => {
  for (const [key, value] of Object.entries(params.authorizationParams ?? {})) {
    if (reservedParameters.includes(key)) return invalid(`Cannot override reserved OAuth parameter: ${key}`)
    if (typeof value !== "string") return invalid(`Authorization parameter ${goQuote(key)} must be a string`)
  }
  for (const target of Object.keys(params.attributeMapping ?? {})) {
    if (protectedTargets.includes(target)) return invalid(`Cannot map to protected system field: ${target}`)
  }
  if ((params.customClaimsAllowlist ?? []).some((key) => key.trim() === ""))
    return invalid("custom_claims_allowlist entries must be non-empty strings")
  return Either.right(undefined)
}

const nameLimit = 100
const urlLimit = 2048
const clientIdLimit = 512

/** An OpenID provider always gets `openid` first: without it there is no ID token. */
export const withOpenId = (scopes: ReadonlyArray<string>): ReadonlyArray<string> =>
  scopes.includes("openid") ? scopes : ["openid", ...scopes]

const given = (value: string | undefined): value is string => value !== undefined && value !== ""

/** The type-specific fields a new provider must have, in Supabase Auth's order. */
const checkRequired = (type: ProviderType, params: Params): Either.Either<void, Invalid> => {
  const identifier = checkIdentifier(params.identifier ?? "")
  if (Either.isLeft(identifier)) return identifier
  if (!identifierPattern.test(identifier.right))
    return invalid(
      "identifier must be 2 to 50 characters of lower-case letters, digits, ':' and '-', starting and ending with a letter or digit"
    )
  if (!given(params.name)) return invalid("name is required")
  if (params.name.length > nameLimit) return invalid(`name must be at most ${nameLimit} characters`)
  if (!given(params.clientId)) return invalid("client_id is required")
  if (params.clientId.length > clientIdLimit)
    return invalid(`client_id must be at most ${clientIdLimit} characters`)
  if (!given(params.clientSecret)) return invalid("client_secret is required")
  if (type === "oidc") {
    if (!given(params.issuer)) return invalid("issuer is required for OIDC providers")
  } else {
    if (!given(params.authorizationUrl)) return invalid("authorization_url is required for OAuth2 providers")
    if (!given(params.tokenUrl)) return invalid("token_url is required for OAuth2 providers")
    if (!given(params.userinfoUrl)) return invalid("userinfo_url is required for OAuth2 providers")
  }
  return Either.right(undefined)
}

/** The provider type of a creation body. */
export const checkType = (type: string | undefined): Either.Either<ProviderType, Invalid> =>
  type === "oauth2" || type === "oidc"
    ? Either.right(type)
    : invalid("provider_type must be either 'oauth2' or 'oidc'")

/** A new provider's fields, checked; the id, the discovery and the times are the caller's. */
export const checkNew = (
  params: Params
): Either.Either<Omit<CustomProvider, "id" | "discovery" | "createdAt" | "updatedAt">, Invalid> =>
  Either.gen(function* () {
    const type = yield* checkType(params.providerType)
    yield* checkRequired(type, params)
    yield* checkMaps(params)
    const scopes = params.scopes ?? []
    const urls = (...values: Array<string | undefined>) => values.map((value) => Option.fromNullable(value))
    const [issuer, discoveryUrl, authorizationUrl, tokenUrl, userinfoUrl, jwksUri] =
      type === "oidc"
        ? urls(params.issuer, nonEmpty(params.discoveryUrl), undefined, undefined, undefined, undefined)
        : urls(
            undefined,
            undefined,
            params.authorizationUrl,
            params.tokenUrl,
            params.userinfoUrl,
            nonEmpty(params.jwksUri)
          )
    return {
      providerType: type,
      identifier: params.identifier ?? "",
      name: params.name ?? "",
      clientId: params.clientId ?? "",
      clientSecret: params.clientSecret ?? "",
      acceptableClientIds: params.acceptableClientIds ?? [],
      scopes: type === "oidc" ? withOpenId(scopes) : scopes,
      pkceEnabled: params.pkceEnabled ?? true,
      attributeMapping: params.attributeMapping ?? {},
      customClaimsAllowlist: params.customClaimsAllowlist ?? [],
      authorizationParams: stringsOf(params.authorizationParams),
      enabled: params.enabled ?? true,
      emailOptional: params.emailOptional ?? false,
      issuer: issuer ?? Option.none(),
      discoveryUrl: discoveryUrl ?? Option.none(),
      skipNonceCheck: type === "oidc" && (params.skipNonceCheck ?? false),
      authorizationUrl: authorizationUrl ?? Option.none(),
      tokenUrl: tokenUrl ?? Option.none(),
      userinfoUrl: userinfoUrl ?? Option.none(),
      jwksUri: jwksUri ?? Option.none()
    }
  }).pipe(Either.map((fields) => ({ ...fields, clientSecret: redactedOf(fields.clientSecret) })))

const nonEmpty = (value: string | undefined) => (given(value) ? value : undefined)

/** The authorization parameters, every value a string by now (`checkMaps`). */
const stringsOf = (params: Readonly<Record<string, unknown>> | undefined): Record<string, string> => {
  const strings: Record<string, string> = {}
  for (const [key, value] of Object.entries(params ?? {})) if (typeof value === "string") strings[key] = value
  return strings
}

/** Whether an update gives a new client secret (an empty one keeps the stored secret). */
export const givesSecret = (params: Params): boolean => given(params.clientSecret)

const redactedOf = (secret: string) => Schema.decodeSync(Schema.Redacted(Schema.String))(secret)

/** The URLs of a provider to check before it is saved (https, a public host). */
export const urlsOf = (
  provider: Pick<
    CustomProvider,
    "issuer" | "discoveryUrl" | "authorizationUrl" | "tokenUrl" | "userinfoUrl" | "jwksUri"
  >
): ReadonlyArray<string> =>
  [
    provider.issuer,
    provider.discoveryUrl,
    provider.authorizationUrl,
    provider.tokenUrl,
    provider.userinfoUrl,
    provider.jwksUri
  ].flatMap((url) => Option.toArray(url))

/** A URL longer than the table takes. */
export const checkLengths = (urls: ReadonlyArray<string>): Either.Either<void, Invalid> =>
  urls.some((url) => url.length > urlLimit)
    ? invalid(`URLs must be at most ${urlLimit} characters`)
    : Either.right(undefined)

/**
 * An update: what the body gives replaces what was there (an empty text or an absent field
 * leaves it), as Supabase Auth's update does; the type and identifier never change. Whether
 * discovery must run again is part of the answer: it must when the issuer or discovery URL moved.
 */
export const update = (
  existing: CustomProvider,
  params: Params,
  now: Date
): Either.Either<{ readonly provider: CustomProvider; readonly rediscover: boolean }, Invalid> =>
  Either.gen(function* () {
    yield* checkMaps(params)
    if (given(params.name) && params.name.length > nameLimit)
      return yield* invalid(`name must be at most ${nameLimit} characters`)
    if (given(params.clientId) && params.clientId.length > clientIdLimit)
      return yield* invalid(`client_id must be at most ${clientIdLimit} characters`)
    const oidc = existing.providerType === "oidc"
    const scopes =
      params.scopes === undefined ? existing.scopes : oidc ? withOpenId(params.scopes) : params.scopes
    const replace = (value: string | undefined, current: Option.Option<string>) =>
      given(value) ? Option.some(value) : current
    const provider = new CustomProvider({
      ...existing,
      name: given(params.name) ? params.name : existing.name,
      clientId: given(params.clientId) ? params.clientId : existing.clientId,
      clientSecret: given(params.clientSecret) ? redactedOf(params.clientSecret) : existing.clientSecret,
      acceptableClientIds: params.acceptableClientIds ?? existing.acceptableClientIds,
      scopes,
      pkceEnabled: params.pkceEnabled ?? existing.pkceEnabled,
      attributeMapping: params.attributeMapping ?? existing.attributeMapping,
      customClaimsAllowlist: params.customClaimsAllowlist ?? existing.customClaimsAllowlist,
      authorizationParams:
        params.authorizationParams === undefined
          ? existing.authorizationParams
          : stringsOf(params.authorizationParams),
      enabled: params.enabled ?? existing.enabled,
      emailOptional: params.emailOptional ?? existing.emailOptional,
      issuer: oidc ? replace(params.issuer, existing.issuer) : existing.issuer,
      discoveryUrl: oidc ? replace(params.discoveryUrl, existing.discoveryUrl) : existing.discoveryUrl,
      skipNonceCheck: oidc ? (params.skipNonceCheck ?? existing.skipNonceCheck) : existing.skipNonceCheck,
      authorizationUrl: oidc
        ? existing.authorizationUrl
        : replace(params.authorizationUrl, existing.authorizationUrl),
      tokenUrl: oidc ? existing.tokenUrl : replace(params.tokenUrl, existing.tokenUrl),
      userinfoUrl: oidc ? existing.userinfoUrl : replace(params.userinfoUrl, existing.userinfoUrl),
      jwksUri: oidc ? existing.jwksUri : replace(params.jwksUri, existing.jwksUri),
      updatedAt: now
    })
    // As in Supabase Auth, a discovery URL in the body, even an empty one, fetches the document again.
    return { provider, rediscover: oidc && (given(params.issuer) || params.discoveryUrl !== undefined) }
  })

/** Where an OpenID provider's discovery document is: the one given, else under the issuer. */
export const discoveryUrlOf = (
  provider: Pick<CustomProvider, "issuer" | "discoveryUrl">
): Option.Option<string> =>
  Option.orElse(provider.discoveryUrl, () =>
    Option.map(provider.issuer, (issuer) => `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`)
  )

/**
 * The claims as the operator shaped them: each allow-listed claim copied into `custom_claims`,
 * then each mapped target set from its source claim (a text names one; any other value is
 * taken as it is), as Supabase Auth applies them.
 */
export const shapeClaims = (
  provider: Pick<CustomProvider, "attributeMapping" | "customClaimsAllowlist">,
  claims: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const shaped: Record<string, unknown> = { ...claims }
  const kept: Record<string, unknown> = {}
  for (const key of provider.customClaimsAllowlist) if (key in claims) kept[key] = claims[key]
  if (Object.keys(kept).length > 0) shaped.custom_claims = kept
  for (const [target, source] of Object.entries(provider.attributeMapping)) {
    if (typeof source !== "string") shaped[target] = source
    else if (source in shaped) shaped[target] = shaped[source]
  }
  return shaped
}

/** Every audience its ID tokens may name: the client id and the further ones. */
export const audiencesOf = (provider: Pick<CustomProvider, "clientId" | "acceptableClientIds">) => [
  provider.clientId,
  ...provider.acceptableClientIds
]
