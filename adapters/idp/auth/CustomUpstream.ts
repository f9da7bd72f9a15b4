import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { UpstreamLoginFailed } from "../../../application/ports/UpstreamIdentityProvider.js"
import * as CustomProvider from "../../../domain/auth/CustomProvider.js"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { Credentials, Upstream } from "../ProviderEntry.js"
import * as OidcProvider from "../providers/oidc.js"

/**
 * A custom provider of the admin API as an upstream: an OpenID provider through the catalog's
 * OpenID code (the discovery document saved with it, so a sign-in makes no discovery call), or
 * a plain OAuth 2.0 provider whose userinfo endpoint says who logged in. Either way the claims
 * go through the operator's mapping and allow-list first, and the identity data takes Supabase
 * Auth's standard claim names.
 */

/**
 * Where the outbound guard may go beyond public addresses (`Credentials`): the operator's
 * private addresses; in tests also a local fake's origin.
 */
export type Reach = Pick<Credentials, "allowedPrivateAddresses" | "endpointOrigin">

/** The standard claims Supabase Auth keeps of any OpenID or OAuth 2.0 provider. */
const standardClaims = [
  "name",
  "given_name",
  "family_name",
  "nickname",
  "preferred_username",
  "picture",
  "locale"
] as const

/** The identity a provider's (shaped) claims describe. */
export const profileOf = (
  identifier: string,
  issuer: string,
  claims: Readonly<Record<string, unknown>>
): Effect.Effect<IdentityData.ProviderProfile, UpstreamLoginFailed> => {
  const subject = IdentityData.text(claims.sub) ?? (typeof claims.sub === "number" ? String(claims.sub) : "")
  const standard: Record<string, string | undefined> = {}
  for (const claim of standardClaims) standard[claim] = IdentityData.text(claims[claim])
  const email = IdentityData.text(claims.email)
  const customClaims = claims.custom_claims
  return IdentityData.profileOf(
    identifier,
    {
      ...standard,
      iss: IdentityData.text(claims.iss) ?? issuer,
      sub: subject,
      full_name: standard.name,
      avatar_url: standard.picture,
      ...(typeof customClaims === "object" && customClaims !== null && !Array.isArray(customClaims)
        ? { custom_claims: { ...customClaims } }
        : {})
    },
    IdentityData.single(email, IdentityData.truthy(claims.email_verified))
  )
}

const authenticationOf = (discovery: Option.Option<CustomProvider.Discovery>) =>
  Option.match(
    Option.flatMap(discovery, (document) =>
      Option.fromNullable(document.token_endpoint_auth_methods_supported)
    ),
    {
      // The default of OpenID Connect Discovery and of RFC 6749 §2.3.1, which every
      // authorization server must support.
      onNone: () => "client_secret_basic" as const,
      onSome: (methods) =>
        methods.includes("client_secret_basic") || !methods.includes("client_secret_post")
          ? ("client_secret_basic" as const)
          : ("client_secret_post" as const)
    }
  )

const UserInfo = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const build = (
  provider: CustomProvider.CustomProvider,
  reach: Reach
): Effect.Effect<Upstream, UpstreamLoginFailed> => {
  const credentials: Credentials = {
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    ...reach
  }
  const name = provider.identifier
  if (provider.providerType === "oidc") {
    const issuer = Option.getOrElse(provider.issuer, () => "")
    return OidcProvider.openId(
      {
        name,
        scopes: CustomProvider.withOpenId(provider.scopes),
        pkce: provider.pkceEnabled,
        nonce: true,
        clientAuthentication: authenticationOf(provider.discovery),
        parameters: provider.authorizationParams,
        userInfo: "when-email-missing",
        profile: (login) => profileOf(name, login.issuer, CustomProvider.shapeClaims(provider, login.claims))
      },
      Option.match(provider.discovery, {
        onNone: () => ({ _tag: "Discovered" as const, issuer: new URL(issuer) }),
        onSome: (document) => ({
          _tag: "Fixed" as const,
          metadata: {
            issuer: document.issuer,
            authorization_endpoint: document.authorization_endpoint,
            token_endpoint: document.token_endpoint,
            jwks_uri: document.jwks_uri,
            ...(document.userinfo_endpoint === undefined
              ? {}
              : { userinfo_endpoint: document.userinfo_endpoint })
          }
        })
      }),
      credentials
    )
  }
  const authorizationEndpoint = Option.getOrElse(provider.authorizationUrl, () => "")
  const userinfo = Option.getOrElse(provider.userinfoUrl, () => "")
  return OAuth2Provider.make(
    {
      name,
      authorizationEndpoint,
      tokenEndpoint: Option.getOrElse(provider.tokenUrl, () => ""),
      scopes: provider.scopes,
      clientAuthentication: "client_secret_basic",
      pkce: provider.pkceEnabled,
      parameters: provider.authorizationParams,
      profile: (session) =>
        Effect.flatMap(session.get(userinfo, UserInfo), (claims) =>
          profileOf(name, new URL(authorizationEndpoint).origin, CustomProvider.shapeClaims(provider, claims))
        )
    },
    credentials
  )
}
