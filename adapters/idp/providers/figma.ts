import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Figma is plain OAuth 2.0 (client credentials in HTTP Basic on api.figma.com's token
 * endpoint). Who logged in comes from `/v1/me`; Figma only lets verified addresses sign in, so
 * its address counts as verified. A configured URL is ignored.
 */

export const api = "https://api.figma.com"

export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  handle: Schema.optional(Schema.NullOr(Schema.String)),
  img_url: Schema.optional(Schema.NullOr(Schema.String))
})

export const profileOf = (user: typeof User.Type) => {
  const name = user.handle ?? undefined
  const email = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "figma",
    {
      iss: api,
      sub: user.id,
      name,
      full_name: name,
      avatar_url: user.img_url ?? undefined
    },
    IdentityData.single(email, true)
  )
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "figma",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "figma",
        authorizationEndpoint: "https://www.figma.com/oauth",
        tokenEndpoint: `${api}/v1/oauth/token`,
        scopes: ["current_user:read"],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        profile: (session) => Effect.flatMap(session.get(`${api}/v1/me`, User), profileOf)
      },
      credentials
    )
}
