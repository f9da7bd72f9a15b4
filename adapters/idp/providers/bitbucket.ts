import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Bitbucket Cloud is plain OAuth 2.0 (client credentials in HTTP Basic). Who logged in comes from
 * the 2.0 API's `/user`, the addresses from `/user/emails`, each marked primary and confirmed
 * or not. A configured URL is ignored.
 */

export const api = "https://api.bitbucket.org/2.0"

export const User = Schema.Struct({
  uuid: Schema.String,
  display_name: Schema.optional(Schema.NullOr(Schema.String)),
  links: Schema.optional(
    Schema.Struct({ avatar: Schema.optional(Schema.Struct({ href: Schema.optional(Schema.String) })) })
  )
})

export const Emails = Schema.Struct({
  values: Schema.Array(
    Schema.Struct({ email: Schema.String, is_primary: Schema.Boolean, is_confirmed: Schema.Boolean })
  )
})

export const profileOf = (user: typeof User.Type, emails: typeof Emails.Type) => {
  const name = user.display_name ?? undefined
  const avatar = user.links?.avatar?.href
  return IdentityData.profileOf(
    "bitbucket",
    {
      iss: api,
      sub: user.uuid,
      name,
      full_name: name,
      picture: avatar,
      avatar_url: avatar
    },
    emails.values.map((entry) => ({
      email: entry.email,
      verified: entry.is_confirmed,
      primary: entry.is_primary
    }))
  )
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "bitbucket",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "bitbucket",
        authorizationEndpoint: "https://bitbucket.org/site/oauth2/authorize",
        tokenEndpoint: "https://bitbucket.org/site/oauth2/access_token",
        scopes: ["account", "email"],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        profile: (session) =>
          Effect.flatMap(
            Effect.all([session.get(`${api}/user`, User), session.get(`${api}/user/emails`, Emails)], {
              concurrency: 2
            }),
            ([user, emails]) => profileOf(user, emails)
          )
      },
      credentials
    )
}
