import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * LinkedIn through "Sign In with LinkedIn using OpenID Connect", as Supabase Auth's
 * `linkedin_oidc` does (LinkedIn retired the older profile API); the key stays `linkedin`.
 * A fixed issuer; the profile is the ID token's, whose `email_verified` LinkedIn sends as a
 * string. LinkedIn takes no PKCE from web apps and no nonce. A configured URL is ignored.
 */

export const issuer = "https://www.linkedin.com/oauth"

export const profileOf = (login: Oidc.Login) => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const givenName = IdentityData.text(claims.given_name)
  const familyName = IdentityData.text(claims.family_name)
  return IdentityData.profileOf(
    "linkedin",
    {
      iss: login.issuer,
      sub: login.subject,
      name: IdentityData.fullName(givenName, familyName),
      given_name: givenName,
      family_name: familyName,
      locale: IdentityData.text(claims.locale),
      picture: IdentityData.text(claims.picture)
    },
    IdentityData.single(email, IdentityData.truthy(claims.email_verified))
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: false,
  url: "ignored",
  parameters: {}
}

export const entry: ProviderEntry = {
  name: "linkedin",
  traits,
  build: (credentials) =>
    Oidc.openId(
      {
        name: "linkedin",
        scopes: ["openid", "profile", "email"],
        pkce: false,
        nonce: false,
        clientAuthentication: "client_secret_post",
        userInfo: "when-email-missing",
        profile: profileOf
      },
      {
        _tag: "Fixed",
        metadata: {
          issuer,
          authorization_endpoint: `${issuer}/v2/authorization`,
          token_endpoint: `${issuer}/v2/accessToken`,
          userinfo_endpoint: "https://api.linkedin.com/v2/userinfo",
          jwks_uri: `${issuer}/openid/jwks`
        }
      },
      credentials
    )
}
