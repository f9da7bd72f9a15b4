import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * GitHub is plain OAuth 2.0: no ID token, so no nonce. Who logged in comes from the REST API
 * with the access token; its addresses from `/user/emails`, each marked primary and verified
 * or not. A configured URL is ignored.
 */

export const api = "https://api.github.com"

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
export const profileOf = (user: typeof User.Type, emails: typeof Emails.Type) => {
  const subject = String(user.id)
  const name = user.name ?? undefined
  return IdentityData.profileOf(
    "github",
    {
      iss: api,
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
  url: "ignored",
  parameters: { login: "login", allow_signup: "allow_signup", prompt: "prompt" }
}

export const entry: ProviderEntry = {
  name: "github",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "github",
        authorizationEndpoint: "https://github.com/login/oauth/authorize",
        tokenEndpoint: "https://github.com/login/oauth/access_token",
        scopes: ["read:user", "user:email"],
        // GitHub documents client_id and client_secret as body parameters of the token request.
        clientAuthentication: "client_secret_post",
        pkce: true,
        profile: (session) =>
          Effect.flatMap(
            Effect.all(
              [session.get(`${api}/user`, User, headers), session.get(`${api}/user/emails`, Emails, headers)],
              {
                concurrency: 2
              }
            ),
            ([user, emails]) => profileOf(user, emails)
          )
      },
      credentials
    )
}
