import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import { type ProviderEntry, type ProviderTraits, plainOAuth2 } from "../ProviderEntry.js"

/**
 * Notion is plain OAuth 2.0 for public integrations (client credentials in HTTP Basic, no
 * scopes). The access token is the integration's bot: who logged in is the bot's owner, read
 * from `/v1/users/me` at a pinned API version. Notion says nothing of verification; like
 * Supabase Auth we take its address as verified. A configured URL is ignored.
 */

export const api = "https://api.notion.com"
const version = "2021-08-16"

export const Bot = Schema.Struct({
  bot: Schema.optional(
    Schema.Struct({
      owner: Schema.optional(
        Schema.Struct({
          user: Schema.optional(
            Schema.Struct({
              id: Schema.String,
              name: Schema.optional(Schema.NullOr(Schema.String)),
              avatar_url: Schema.optional(Schema.NullOr(Schema.String)),
              person: Schema.optional(Schema.Struct({ email: Schema.optional(Schema.NullOr(Schema.String)) }))
            })
          )
        })
      )
    })
  )
})

export const profileOf = (bot: typeof Bot.Type) => {
  // A workspace-owned integration has no user behind it: the profile check refuses no subject.
  const user = bot.bot?.owner?.user
  const name = user?.name ?? undefined
  const avatar = user?.avatar_url ?? undefined
  const email = IdentityData.text(user?.person?.email)
  const subject = user?.id ?? ""
  return IdentityData.profileOf(
    "notion",
    {
      iss: api,
      sub: subject,
      name,
      full_name: name,
      picture: avatar,
      avatar_url: avatar
    },
    IdentityData.single(email, true)
  )
}

export const traits: ProviderTraits = plainOAuth2

export const entry: ProviderEntry = {
  name: "notion",
  traits,
  build: (credentials) =>
    OAuth2Provider.make(
      {
        name: "notion",
        authorizationEndpoint: `${api}/v1/oauth/authorize`,
        tokenEndpoint: `${api}/v1/oauth/token`,
        scopes: [],
        clientAuthentication: "client_secret_basic",
        pkce: false,
        // Notion's authorization URL names who owns the integration's access: the user.
        parameters: { owner: "user" },
        profile: (session) =>
          Effect.flatMap(session.get(`${api}/v1/users/me`, Bot, { "notion-version": version }), profileOf)
      },
      credentials
    )
}
