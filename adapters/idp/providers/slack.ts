import * as IdentityData from "../IdentityData.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/**
 * Slack through "Sign in with Slack" (OpenID Connect), as Supabase Auth's `slack_oidc` does,
 * under two keys: `slack`, the spec's, and `slack_oidc`, Supabase Auth's (its clients and
 * identities name it so), each configured by its own `EXTERNAL_<KEY>_*` variables. A fixed
 * issuer; the ID token holds the profile, the user's id and team as `https://slack.com/...`
 * claims. Slack answers token errors with HTTP 200 and `"ok": false`, which the shared client
 * reads as the error it is. A configured URL is ignored.
 */

export const issuer = "https://slack.com"
/** Supabase Auth records Slack's API address as `iss`. */
export const api = "https://slack.com/api"

/** The keys this sign-in is known by. */
export type Key = "slack" | "slack_oidc"

export const profileOf = (login: Oidc.Login, key: Key = "slack") => {
  const { claims } = login
  const subject = IdentityData.text(claims["https://slack.com/user_id"]) ?? login.subject
  const name = IdentityData.text(claims.name)
  const picture = IdentityData.text(claims.picture)
  const email = IdentityData.text(claims.email)
  return IdentityData.profileOf(
    key,
    {
      iss: api,
      sub: subject,
      name,
      full_name: name,
      picture,
      avatar_url: picture,
      custom_claims: {
        "https://slack.com/team_id": IdentityData.text(claims["https://slack.com/team_id"]) ?? ""
      }
    },
    IdentityData.single(email, IdentityData.truthy(claims.email_verified))
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: true,
  url: "ignored",
  parameters: { team: "team" }
}

const entryFor = (key: Key): ProviderEntry => ({
  name: key,
  traits,
  build: (credentials) =>
    Oidc.openId(
      {
        name: key,
        scopes: ["openid", "profile", "email"],
        pkce: false,
        nonce: true,
        clientAuthentication: "client_secret_post",
        userInfo: "when-email-missing",
        profile: (login) => profileOf(login, key)
      },
      {
        _tag: "Fixed",
        metadata: {
          issuer,
          authorization_endpoint: `${issuer}/openid/connect/authorize`,
          token_endpoint: `${api}/openid.connect.token`,
          userinfo_endpoint: `${api}/openid.connect.userInfo`,
          jwks_uri: `${issuer}/openid/connect/keys`
        }
      },
      credentials
    )
})

export const entry = entryFor("slack")
export const oidcEntry = entryFor("slack_oidc")
