import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * Google is an OpenID provider at a fixed issuer; a configured URL is ignored. Its endpoints are
 * the ones its discovery document has listed for years, so no discovery round trip is needed.
 */

export const issuer = "https://accounts.google.com"

/** The profile, with `data` shaped like the identity data Supabase Auth keeps for Google logins. */
export const profileOf = (login: Oidc.Login) => {
  const { claims } = login
  const email = IdentityData.text(claims.email)
  const name = IdentityData.text(claims.name)
  const picture = IdentityData.text(claims.picture)
  const hostedDomain = IdentityData.text(claims.hd)
  return IdentityData.profileOf(
    "google",
    {
      iss: login.issuer,
      sub: login.subject,
      name,
      full_name: name,
      picture,
      avatar_url: picture,
      ...(hostedDomain === undefined ? {} : { custom_claims: { hd: hostedDomain } })
    },
    IdentityData.single(
      email,
      IdentityData.truthy(claims.email_verified) || IdentityData.truthy(claims.verified_email)
    )
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: true,
  url: "ignored",
  // What applications pass for offline access and account choice (`queryParams` in supabase-js).
  parameters: {
    access_type: "access_type",
    prompt: "prompt",
    login_hint: "login_hint",
    hd: "hd",
    include_granted_scopes: "include_granted_scopes"
  }
}

export const entry: ProviderEntry = {
  name: "google",
  traits,
  build: (credentials) =>
    Oidc.openId(
      {
        name: "google",
        scopes: ["openid", "email", "profile"],
        pkce: true,
        nonce: true,
        clientAuthentication: "client_secret_post",
        userInfo: "when-email-missing",
        profile: profileOf
      },
      {
        _tag: "Fixed",
        metadata: {
          issuer,
          authorization_endpoint: "https://accounts.google.com/o/oauth2/v2/auth",
          token_endpoint: "https://oauth2.googleapis.com/token",
          userinfo_endpoint: "https://openidconnect.googleapis.com/v1/userinfo",
          jwks_uri: "https://www.googleapis.com/oauth2/v3/certs"
        }
      },
      credentials
    )
}
