import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Zoom is plain OAuth 2.0 (client credentials in HTTP Basic; the scopes are the app's, set in
 * Zoom's marketplace, so none are asked for). Who logged in comes from `/v2/users/me`. The
 * address counts as verified unless the account signs in to Zoom with that address and a
 * password (`login_type` 100) and Zoom has not verified it.
 * A configured URL is ignored.
 */

export const site = "https://zoom.us"
export const api = "https://api.zoom.us/v2"

export const User = Schema.Struct({
  id: Schema.String,
  first_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  verified: Schema.optional(Schema.NullOr(Schema.Number)),
  login_type: Schema.optional(Schema.NullOr(Schema.String)),
  pic_url: Schema.optional(Schema.NullOr(Schema.String))
})

/** Zoom's login type of an account signed in to with its address and a password. */
const emailLogin = "100"

export const profileOf = (user: typeof User.Type) => {
  const name = IdentityData.fullName(IdentityData.text(user.first_name), IdentityData.text(user.last_name))
  const picture = IdentityData.text(user.pic_url)
  const verified = user.login_type !== emailLogin || (user.verified ?? 0) !== 0
  return IdentityData.profileOf(
    "zoom",
    { iss: api, sub: user.id, name, full_name: name, picture, avatar_url: picture },
    IdentityData.single(IdentityData.text(user.email), verified)
  )
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "zoom",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "zoom",
        authorizationEndpoint: `${site}/oauth/authorize`,
        tokenEndpoint: `${site}/oauth/token`,
        scopes: [],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        profile: (session) => Effect.flatMap(session.get(`${api}/users/me`, User), profileOf)
      },
      credentials
    )
}
