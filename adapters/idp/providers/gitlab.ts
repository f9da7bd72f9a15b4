import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * GitLab is plain OAuth 2.0, at gitlab.com or at the instance `EXTERNAL_GITLAB_URL` names
 * (a path is kept, for instances served under one). Who logged in comes from `/api/v4/user`; its
 * address counts as verified once GitLab confirmed it, the other addresses never do.
 */

export const publicInstance = "https://gitlab.com"

export const User = Schema.Struct({
  id: Schema.Int,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  avatar_url: Schema.optional(Schema.NullOr(Schema.String)),
  confirmed_at: Schema.optional(Schema.NullOr(Schema.String))
})

export const Emails = Schema.Array(Schema.Struct({ email: Schema.String }))

/** The instance's address without a trailing slash, as Supabase Auth records it in `iss`. */
export const instanceOf = (url: URL | undefined): string => (url?.href ?? publicInstance).replace(/\/+$/, "")

export const profileOf = (instance: string, user: typeof User.Type, emails: typeof Emails.Type) => {
  const subject = String(user.id)
  const name = user.name ?? undefined
  const avatar = user.avatar_url ?? undefined
  const primary = IdentityData.text(user.email)
  return IdentityData.profileOf(
    "gitlab",
    {
      iss: instance,
      sub: subject,
      name,
      full_name: name,
      picture: avatar,
      avatar_url: avatar
    },
    [
      // GitLab's list of further addresses says nothing of their confirmation.
      ...emails.map((entry) => ({ email: entry.email, verified: false, primary: false })),
      ...IdentityData.single(primary, IdentityData.text(user.confirmed_at) !== undefined)
    ]
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: true,
  nonce: false,
  url: "optional",
  parameters: {}
}

export const entry: ProviderEntry = {
  name: "gitlab",
  traits,
  build: (credentials) => {
    const instance = instanceOf(credentials.issuerUrl)
    return OAuth2Provider.make(
      {
        name: "gitlab",
        authorizationEndpoint: `${instance}/oauth/authorize`,
        tokenEndpoint: `${instance}/oauth/token`,
        scopes: ["read_user"],
        clientAuthentication: "client_secret_post",
        pkce: true,
        profile: (session) =>
          Effect.flatMap(
            Effect.all(
              [
                session.get(`${instance}/api/v4/user`, User),
                session.get(`${instance}/api/v4/user/emails`, Emails)
              ],
              {
                concurrency: 2
              }
            ),
            ([user, emails]) => profileOf(instance, user, emails)
          )
      },
      credentials
    )
  }
}
