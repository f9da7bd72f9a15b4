import { createHmac } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * Facebook Login is plain OAuth 2.0. Who logged in comes from the Graph API's `/me`, asked with
 * an `appsecret_proof` (the access token signed with the app secret), which apps that require
 * it refuse calls without. Facebook only hands out confirmed addresses. A configured URL is
 * ignored.
 */

const graph = "https://graph.facebook.com"
/** The profile URL without its proof: Supabase Auth records it as `iss`. */
export const profileUrl = `${graph}/me?fields=email,first_name,last_name,name,picture`

export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.optional(Schema.NullOr(Schema.String)),
  first_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  picture: Schema.optional(
    Schema.Struct({ data: Schema.optional(Schema.Struct({ url: Schema.optional(Schema.String) })) })
  )
})

/** https://developers.facebook.com/docs/graph-api/securing-requests#appsecret_proof */
export const appSecretProof = (appSecret: string, accessToken: string): string =>
  createHmac("sha256", appSecret).update(accessToken).digest("hex")

export const profileOf = (user: typeof User.Type) => {
  const name = IdentityData.fullName(user.first_name ?? undefined, user.last_name ?? undefined)
  const alias = user.name ?? undefined
  const picture = user.picture?.data?.url
  const email = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "facebook",
    {
      iss: profileUrl,
      sub: user.id,
      name,
      full_name: name,
      nickname: alias,
      slug: alias,
      picture,
      avatar_url: picture
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
  parameters: { auth_type: "auth_type" }
}

export const entry: ProviderEntry = {
  name: "facebook",
  traits,
  // Limited Login's ID tokens name no `email_verified`; Facebook gives out only checked addresses.
  idTokenClaims: IdentityData.addressVerified,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "facebook",
        authorizationEndpoint: "https://www.facebook.com/dialog/oauth",
        tokenEndpoint: `${graph}/oauth/access_token`,
        scopes: ["email", "public_profile"],
        clientAuthentication: "client_secret_post",
        pkce: false,
        profile: (session) => {
          const url = new URL(profileUrl)
          url.searchParams.set(
            "appsecret_proof",
            appSecretProof(Redacted.value(credentials.clientSecret), session.tokens.access_token)
          )
          return Effect.flatMap(session.get(url, User), profileOf)
        }
      },
      credentials
    )
}
