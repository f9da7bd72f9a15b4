import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * Twitch is plain OAuth 2.0 (client credentials in the token request's body; its token
 * response lists scopes as an array). Who logged in comes from Helix `/users`, which wants our
 * client id in a `Client-Id` header; Twitch only shares verified addresses. A configured URL is
 * ignored.
 */

export const api = "https://api.twitch.tv"

export const Users = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      login: Schema.String,
      display_name: Schema.optional(Schema.String),
      type: Schema.optional(Schema.String),
      broadcaster_type: Schema.optional(Schema.String),
      description: Schema.optional(Schema.String),
      profile_image_url: Schema.optional(Schema.String),
      offline_image_url: Schema.optional(Schema.String),
      view_count: Schema.optional(Schema.Number),
      email: Schema.optional(Schema.NullOr(Schema.String))
    })
  )
})

export const profileOf = (users: typeof Users.Type) => {
  // No user in the answer leaves the subject empty, which the profile check refuses.
  const user = users.data[0]
  const subject = user?.id ?? ""
  const email = IdentityData.text(user?.email)
  return IdentityData.profileOf(
    "twitch",
    {
      iss: api,
      sub: subject,
      name: user?.login,
      full_name: user?.login,
      nickname: user?.display_name,
      slug: user?.display_name,
      picture: user?.profile_image_url,
      avatar_url: user?.profile_image_url,
      custom_claims: {
        broadcaster_type: user?.broadcaster_type ?? "",
        description: user?.description ?? "",
        type: user?.type ?? "",
        offline_image_url: user?.offline_image_url ?? "",
        view_count: user?.view_count ?? 0
      }
    },
    IdentityData.single(email, true)
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: false,
  url: "ignored",
  parameters: { force_verify: "force_verify" }
}

export const entry: ProviderEntry = {
  name: "twitch",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "twitch",
        authorizationEndpoint: "https://id.twitch.tv/oauth2/authorize",
        tokenEndpoint: "https://id.twitch.tv/oauth2/token",
        scopes: ["user:read:email"],
        clientAuthentication: "client_secret_post",
        pkce: false,
        profile: (session) =>
          Effect.flatMap(
            session.get(`${api}/helix/users`, Users, { "client-id": credentials.clientId }),
            profileOf
          )
      },
      credentials
    )
}
