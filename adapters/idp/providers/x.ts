import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * X (formerly Twitter) through its OAuth 2.0 sign-in, Supabase Auth's `x` (its `twitter` is the
 * older OAuth 1.0a one): PKCE, client credentials in HTTP Basic. Who logged in comes from the
 * v2 API's `/2/users/me`; X hands out only a confirmed address, so one it gives is verified.
 * A configured URL is ignored.
 */

export const site = "https://x.com"
export const api = "https://api.x.com"

export const User = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    name: Schema.optional(Schema.NullOr(Schema.String)),
    username: Schema.optional(Schema.NullOr(Schema.String)),
    confirmed_email: Schema.optional(Schema.NullOr(Schema.String)),
    profile_image_url: Schema.optional(Schema.NullOr(Schema.String)),
    url: Schema.optional(Schema.NullOr(Schema.String)),
    created_at: Schema.optional(Schema.NullOr(Schema.String))
  })
})

/** The fields Supabase Auth asks `/2/users/me` for. */
const fields = "id,name,username,confirmed_email,profile_image_url,url,created_at"

export const profileOf = ({ data: user }: typeof User.Type) => {
  const username = IdentityData.text(user.username)
  const name = IdentityData.text(user.name)
  const picture = IdentityData.text(user.profile_image_url)
  return IdentityData.profileOf(
    "x",
    {
      iss: api,
      sub: user.id,
      name,
      full_name: name,
      preferred_username: username,
      user_name: username,
      picture,
      avatar_url: picture,
      profile: `${site}/${username ?? ""}`,
      website: IdentityData.text(user.url),
      custom_claims: { created_at: user.created_at ?? "" }
    },
    IdentityData.single(IdentityData.text(user.confirmed_email), true)
  )
}

export const traits: ProviderTraits = { ...plainOAuth2, pkce: true }

export const entry: ProviderEntry = {
  name: "x",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "x",
        authorizationEndpoint: `${site}/i/oauth2/authorize`,
        tokenEndpoint: `${api}/2/oauth2/token`,
        // `tweet.read` is required of any user-context token, even one that reads no posts.
        scopes: ["users.email", "tweet.read", "users.read", "offline.access"],
        clientAuthentication: "client_secret_basic",
        pkce: true,
        profile: (session) =>
          Effect.flatMap(session.get(`${api}/2/users/me?user.fields=${fields}`, User), profileOf)
      },
      credentials
    )
}
