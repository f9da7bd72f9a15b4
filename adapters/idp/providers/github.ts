import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * GitHub is plain OAuth 2.0: no ID token, so no nonce. Who logged in comes from the REST API
 * with the access token; its addresses from `/user/emails`, each marked primary and verified
 * or not. A configured URL names a GitHub Enterprise Server.
 */

export const api = "https://api.github.com"

/**
 * Where sign-ins and API calls go: github.com, or the GitHub Enterprise Server at
 * `EXTERNAL_GITHUB_URL`, whose REST API is under `/api/v3` (as Supabase Auth builds both).
 */
export const hostsOf = (url: URL | undefined): { readonly web: string; readonly api: string } => {
  if (url === undefined) return { web: "https://github.com", api }
  const web = url.href.replace(/\/+$/, "")
  return { web, api: web.endsWith("api.github.com") ? web : `${web}/api/v3` }
}

/** The fields of `GET /user` we keep; the rest is ignored. */
export const User = Schema.Struct({
  id: Schema.Int,
  login: Schema.String,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  avatar_url: Schema.optional(Schema.NullOr(Schema.String))
})

/** `GET /user/emails` (needs `user:email`). */
export const Emails = Schema.Array(
  Schema.Struct({ email: Schema.String, primary: Schema.Boolean, verified: Schema.Boolean })
)

/** The profile, with `data` shaped like the identity data Supabase Auth keeps for GitHub logins. */
export const profileOf = (user: typeof User.Type, emails: typeof Emails.Type, issuer: string = api) => {
  const subject = String(user.id)
  const name = user.name ?? undefined
  return IdentityData.profileOf(
    "github",
    {
      iss: issuer,
      sub: subject,
      name,
      full_name: name,
      preferred_username: user.login,
      user_name: user.login,
      avatar_url: user.avatar_url ?? undefined
    },
    emails
  )
}

const headers = { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" }

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: false,
  url: "optional",
  parameters: { login: "login", allow_signup: "allow_signup", prompt: "prompt" }
}

export const entry: ProviderEntry = {
  name: "github",
  traits,
  build: (credentials) => {
    const hosts = hostsOf(credentials.issuerUrl)
    return OAuth2Provider.make(
      {
        name: "github",
        authorizationEndpoint: `${hosts.web}/login/oauth/authorize`,
        tokenEndpoint: `${hosts.web}/login/oauth/access_token`,
        scopes: ["read:user", "user:email"],
        // GitHub documents client_id and client_secret as body parameters of the token request.
        clientAuthentication: "client_secret_post",
        pkce: true,
        profile: (session) =>
          Effect.flatMap(
            Effect.all(
              [
                session.get(`${hosts.api}/user`, User, headers),
                session.get(`${hosts.api}/user/emails`, Emails, headers)
              ],
              { concurrency: 2 }
            ),
            ([user, emails]) => profileOf(user, emails, hosts.api)
          )
      },
      credentials
    )
  }
}
