import * as IdentityData from "../IdentityData.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * LinkedIn through "Sign In with LinkedIn using OpenID Connect", as Supabase Auth's
 * `linkedin_oidc` does (LinkedIn retired the older profile API), under two keys: `linkedin`, the
 * spec's, and `linkedin_oidc`, Supabase Auth's (its clients and identities name it so), each
 * configured by its own `EXTERNAL_<KEY>_*` variables. A fixed issuer; the profile is the ID
 * token's, whose `email_verified` LinkedIn sends as a string. LinkedIn takes no PKCE from web
 * apps and no nonce. A configured URL is ignored.
 */

export const issuer = "https://www.linkedin.com/oauth"

/** The keys this sign-in is known by. */
export type Key = "linkedin" | "linkedin_oidc"

export const profileOf = (login: Oidc.Login, key: Key = "linkedin") => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const givenName = IdentityData.text(claims.given_name)
  const familyName = IdentityData.text(claims.family_name)
  return IdentityData.profileOf(
    key,
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

export const traits: ProviderTraits = plainOAuth2

const entryFor = (key: Key): ProviderEntry => ({
  name: key,
  traits,
  build: (credentials) =>
    Oidc.openId(
      {
        name: key,
        scopes: ["openid", "profile", "email"],
        pkce: false,
        nonce: false,
        clientAuthentication: "client_secret_post",
        userInfo: "when-email-missing",
        profile: (login) => profileOf(login, key)
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
})

export const entry = entryFor("linkedin")
export const oidcEntry = entryFor("linkedin_oidc")
