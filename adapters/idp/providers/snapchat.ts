import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Snapchat (Login Kit) is plain OAuth 2.0 with PKCE (client credentials in HTTP Basic). Who
 * logged in comes from the Kit API's GraphQL `/v1/me`; Snapchat shares no address unless the
 * app was granted one, and then a confirmed one. A configured URL is ignored.
 */

/** Supabase Auth records the token endpoint as `iss` for Snapchat logins. */
export const issuer = "https://accounts.snapchat.com/accounts/oauth2/token"
const profileUrl = "https://kit.snapchat.com/v1/me"
const query = "{me { externalId displayName bitmoji { avatar id } email } }"

export const Me = Schema.Struct({
  data: Schema.Struct({
    me: Schema.Struct({
      externalId: Schema.String,
      displayName: Schema.optional(Schema.NullOr(Schema.String)),
      bitmoji: Schema.optional(
        Schema.NullOr(Schema.Struct({ avatar: Schema.optional(Schema.NullOr(Schema.String)) }))
      ),
      email: Schema.optional(Schema.NullOr(Schema.String))
    })
  })
})

export const profileOf = ({ data: { me } }: typeof Me.Type) => {
  const name = me.displayName ?? undefined
  const avatar = me.bitmoji?.avatar ?? undefined
  const email = IdentityData.text(me.email)
  return IdentityData.profileOf(
    "snapchat",
    {
      iss: issuer,
      sub: me.externalId,
      name,
      full_name: name,
      slug: name,
      picture: avatar,
      avatar_url: avatar
    },
    IdentityData.single(email, true)
  )
}

export const traits: ProviderTraits = { ...plainOAuth2, pkce: true }

export const entry: ProviderEntry = {
  name: "snapchat",
  traits,
  // Its ID tokens name no `email_verified`; Supabase Auth counts their address verified.
  idTokenClaims: IdentityData.addressVerified,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "snapchat",
        authorizationEndpoint: "https://accounts.snapchat.com/accounts/oauth2/auth",
        tokenEndpoint: "https://accounts.snapchat.com/accounts/oauth2/token",
        scopes: [
          "https://auth.snapchat.com/oauth2/api/user.external_id",
          "https://auth.snapchat.com/oauth2/api/user.display_name",
          "https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar"
        ],
        clientAuthentication: "client_secret_basic",
        pkce: true,
        profile: (session) => {
          const url = new URL(profileUrl)
          url.searchParams.set("query", query)
          return Effect.flatMap(session.get(url, Me), profileOf)
        }
      },
      credentials
    )
}
