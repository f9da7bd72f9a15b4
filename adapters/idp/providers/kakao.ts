import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Kakao Login is plain OAuth 2.0 (client credentials in the form). Who logged in comes from
 * `/v2/user/me`; the Kakao account's address counts as verified when Kakao says it is both
 * verified and valid. A configured URL is ignored. Apps that signed in with Kakao's SDK (its
 * OpenID Connect) may sign in with the ID token it gave them (domain/auth/IdTokenIssuer's `kakao`).
 */

export const auth = "https://kauth.kakao.com"
export const api = "https://kapi.kakao.com"

export const User = Schema.Struct({
  id: Schema.Int,
  kakao_account: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        profile: Schema.optional(
          Schema.NullOr(
            Schema.Struct({
              nickname: Schema.optional(Schema.NullOr(Schema.String)),
              profile_image_url: Schema.optional(Schema.NullOr(Schema.String))
            })
          )
        ),
        email: Schema.optional(Schema.NullOr(Schema.String)),
        is_email_valid: Schema.optional(Schema.NullOr(Schema.Boolean)),
        is_email_verified: Schema.optional(Schema.NullOr(Schema.Boolean))
      })
    )
  )
})

export const profileOf = (user: typeof User.Type) => {
  const account = user.kakao_account ?? undefined
  const nickname = IdentityData.text(account?.profile?.nickname)
  const picture = IdentityData.text(account?.profile?.profile_image_url)
  const subject = String(user.id)
  return IdentityData.profileOf(
    "kakao",
    {
      iss: api,
      sub: subject,
      name: nickname,
      full_name: nickname,
      preferred_username: nickname,
      user_name: nickname,
      avatar_url: picture
    },
    IdentityData.single(
      IdentityData.text(account?.email),
      account?.is_email_verified === true && account.is_email_valid === true
    )
  )
}

/**
 * A Kakao ID token's claims in OpenID's standard form, as Supabase Auth reads them: the nickname
 * is the name, and an address in it counts as verified (Kakao puts in no `email_verified`).
 */
export const idTokenClaims = (
  claims: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const nickname = IdentityData.text(claims.nickname)
  return IdentityData.addressVerified({
    ...claims,
    ...(nickname === undefined ? {} : { name: nickname, preferred_username: nickname })
  })
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "kakao",
  traits,
  idTokenClaims,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "kakao",
        authorizationEndpoint: `${auth}/oauth/authorize`,
        tokenEndpoint: `${auth}/oauth/token`,
        scopes: ["account_email", "profile_image", "profile_nickname"],
        clientAuthentication: "client_secret_post",
        pkce: false,
        profile: (session) => Effect.flatMap(session.get(`${api}/v2/user/me`, User), profileOf)
      },
      credentials
    )
}
