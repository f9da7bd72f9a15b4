import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * Spotify is plain OAuth 2.0 with PKCE (client credentials in HTTP Basic). Who logged in comes
 * from the Web API's `/me`. Spotify does not say whether the address is verified, so it never
 * counts as verified. A configured URL is ignored.
 */

export const api = "https://api.spotify.com/v1"

export const User = Schema.Struct({
  id: Schema.String,
  display_name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  images: Schema.optional(
    Schema.NullOr(
      Schema.Array(
        Schema.Struct({
          url: Schema.String,
          height: Schema.optional(Schema.NullOr(Schema.Number)),
          width: Schema.optional(Schema.NullOr(Schema.Number))
        })
      )
    )
  )
})

/** The largest of the user's images, as Supabase Auth picks it. */
export const avatarOf = (images: NonNullable<(typeof User.Type)["images"]>): string | undefined => {
  const area = (image: (typeof images)[number]) => (image.height ?? 0) * (image.width ?? 0)
  const first = images[0]
  return first === undefined
    ? undefined
    : images.reduce((largest, image) => (area(image) > area(largest) ? image : largest), first).url
}

export const profileOf = (user: typeof User.Type) => {
  const name = user.display_name ?? undefined
  const avatar = avatarOf(user.images ?? [])
  const email = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "spotify",
    {
      iss: api,
      sub: user.id,
      name,
      full_name: name,
      picture: avatar,
      avatar_url: avatar
    },
    IdentityData.single(email, false)
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: false,
  url: "ignored",
  parameters: { show_dialog: "show_dialog" }
}

export const entry: ProviderEntry = {
  name: "spotify",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "spotify",
        authorizationEndpoint: "https://accounts.spotify.com/authorize",
        tokenEndpoint: "https://accounts.spotify.com/api/token",
        scopes: ["user-read-email", "user-read-private"],
        clientAuthentication: "client_secret_basic",
        pkce: true,
        profile: (session) => Effect.flatMap(session.get(`${api}/me`, User), profileOf)
      },
      credentials
    )
}
