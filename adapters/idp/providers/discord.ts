import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * Discord is plain OAuth 2.0. Who logged in comes from `/users/@me`; its one address is
 * verified when Discord says so. A configured URL is ignored.
 */

export const api = "https://discord.com/api"
const cdn = "https://cdn.discordapp.com"

export const User = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  discriminator: Schema.optional(Schema.NullOr(Schema.String)),
  global_name: Schema.optional(Schema.NullOr(Schema.String)),
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  verified: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/**
 * The user's avatar on Discord's CDN; without one, the default avatar their discriminator picks
 * (modulo 5). An animated avatar's hash starts with `a_` and is served as a GIF.
 */
export const avatarOf = (user: typeof User.Type): string => {
  const avatar = IdentityData.text(user.avatar)
  if (avatar === undefined) {
    const discriminator = Number.parseInt(user.discriminator ?? "0", 10)
    return `${cdn}/embed/avatars/${Number.isNaN(discriminator) ? 0 : discriminator % 5}.png`
  }
  return `${cdn}/avatars/${user.id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`
}

export const profileOf = (user: typeof User.Type) => {
  const avatar = avatarOf(user)
  const email = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "discord",
    {
      iss: api,
      sub: user.id,
      name: `${user.username}#${user.discriminator ?? "0"}`,
      full_name: user.username,
      picture: avatar,
      avatar_url: avatar,
      custom_claims: { global_name: user.global_name ?? "" }
    },
    IdentityData.single(email, user.verified === true)
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: false,
  url: "ignored",
  parameters: { prompt: "prompt" }
}

export const entry: ProviderEntry = {
  name: "discord",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "discord",
        authorizationEndpoint: `${api}/oauth2/authorize`,
        tokenEndpoint: `${api}/oauth2/token`,
        scopes: ["identify", "email"],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        profile: (session) => Effect.flatMap(session.get(`${api}/users/@me`, User), profileOf)
      },
      credentials
    )
}
