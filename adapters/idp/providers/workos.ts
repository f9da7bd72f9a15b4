import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { UpstreamLoginFailed } from "../../../application/ports/UpstreamIdentityProvider.js"
import * as IdentityData from "../IdentityData.js"
import * as OAuth2Provider from "../OAuth2Provider.js"
import type { ProviderEntry, ProviderTraits } from "../ProviderEntry.js"

/**
 * WorkOS SSO is plain OAuth 2.0 in front of an organisation's own identity provider. Which one
 * is chosen by the sign-in request: a `connection`, an `organization` or a `provider`
 * (`workos_provider` in the request, `provider` being taken by our own parameter). The token
 * response carries the profile itself, so no API call follows. WorkOS only hands out addresses
 * the organisation's domain vouches for. `EXTERNAL_WORKOS_URL` may name another API address.
 */

export const publicApi = "https://api.workos.com"

export const Profile = Schema.Struct({
  id: Schema.String,
  connection_id: Schema.optional(Schema.NullOr(Schema.String)),
  organization_id: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  first_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.NullOr(Schema.String))
})

export const profileOf = (api: string, profile: typeof Profile.Type) => {
  const name = IdentityData.fullName(profile.first_name ?? undefined, profile.last_name ?? undefined)
  const email = IdentityData.text(profile.email)
  return IdentityData.profileOf(
    "workos",
    {
      iss: api,
      sub: profile.id,
      name,
      full_name: name,
      custom_claims: {
        connection_id: profile.connection_id ?? "",
        organization_id: profile.organization_id ?? ""
      }
    },
    IdentityData.single(email, true)
  )
}

export const traits: ProviderTraits = {
  callback: "query",
  protocol: "oauth2",
  pkce: false,
  nonce: false,
  url: "optional",
  parameters: {
    connection: "connection",
    organization: "organization",
    workos_provider: "provider",
    login_hint: "login_hint",
    domain_hint: "domain_hint"
  }
}

export const entry: ProviderEntry = {
  name: "workos",
  traits,
  build: (credentials) => {
    const api = (credentials.issuerUrl?.href ?? publicApi).replace(/\/+$/, "")
    return OAuth2Provider.make(
      {
        name: "workos",
        authorizationEndpoint: `${api}/sso/authorize`,
        tokenEndpoint: `${api}/sso/token`,
        scopes: [],
        clientAuthentication: "client_secret_post",
        pkce: false,
        profile: (session) =>
          Effect.flatMap(
            Effect.mapError(
              Schema.decodeUnknown(Profile)(session.tokens.profile),
              () =>
                new UpstreamLoginFailed({
                  message: "Login at workos failed: the token response held no profile"
                })
            ),
            (profile) => profileOf(api, profile)
          )
      },
      credentials
    )
  }
}
