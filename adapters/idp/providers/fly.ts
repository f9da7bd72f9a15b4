import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Fly.io is plain OAuth 2.0 (client credentials in HTTP Basic). Who logged in comes from the
 * token's own description, `/oauth/token/info`, whose address Fly.io has verified. The
 * organizations, application and scope it names are kept under `custom_claims`, as Supabase
 * Auth keeps them. A configured URL is ignored.
 */

export const api = "https://api.fly.io"

export const TokenInfo = Schema.Struct({
  resource_owner_id: Schema.optional(Schema.NullOr(Schema.String)),
  user_id: Schema.String,
  user_name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  organizations: Schema.optional(
    Schema.NullOr(
      Schema.Array(
        Schema.Struct({
          id: Schema.String,
          role: Schema.String
        })
      )
    )
  ),
  scope: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  application: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String }))),
  created_at: Schema.optional(Schema.NullOr(Schema.Number))
})

export const profileOf = (info: typeof TokenInfo.Type) => {
  const userName = IdentityData.text(info.user_name)
  return IdentityData.profileOf(
    "fly",
    {
      iss: api,
      sub: info.user_id,
      full_name: userName,
      custom_claims: {
        resource_owner_id: info.resource_owner_id ?? "",
        // Supabase Auth's Go structs write an absent list or map as null, and a missing number as 0.
        organizations: info.organizations ?? null,
        application: info.application ?? null,
        scope: info.scope ?? null,
        created_at: info.created_at ?? 0
      }
    },
    IdentityData.single(IdentityData.text(info.email), true)
  )
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "fly",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "fly",
        authorizationEndpoint: `${api}/oauth/authorize`,
        tokenEndpoint: `${api}/oauth/token`,
        scopes: ["read"],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        profile: (session) => Effect.flatMap(session.get(`${api}/oauth/token/info`, TokenInfo), profileOf)
      },
      credentials
    )
}
