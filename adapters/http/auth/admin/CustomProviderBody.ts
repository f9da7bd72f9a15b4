import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Params } from "../../../../domain/auth/CustomProvider.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as Endpoint from "../Endpoint.js"
import type * as Refusal from "../Refusal.js"

const { field } = Endpoint
const Strings = Schema.Array(Schema.String)
const Mapping = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** The body of POST and PUT /admin/custom-providers, as Supabase Auth's params struct reads it. */
const Body = Schema.Struct({
  provider_type: field(Schema.String),
  identifier: field(Schema.String),
  name: field(Schema.String),
  client_id: field(Schema.String),
  client_secret: field(Schema.String),
  acceptable_client_ids: field(Strings),
  scopes: field(Strings),
  pkce_enabled: field(Schema.Boolean),
  attribute_mapping: field(Mapping),
  custom_claims_allowlist: field(Strings),
  authorization_params: field(Mapping),
  enabled: field(Schema.Boolean),
  email_optional: field(Schema.Boolean),
  issuer: field(Schema.String),
  discovery_url: field(Schema.String),
  skip_nonce_check: field(Schema.Boolean),
  authorization_url: field(Schema.String),
  token_url: field(Schema.String),
  userinfo_url: field(Schema.String),
  jwks_uri: field(Schema.String)
})

export const decode = (request: Pick<HttpRequest, "body">): Effect.Effect<Params, Refusal.BadJson> =>
  Effect.map(Endpoint.body(Body)(request), (body) => ({
    providerType: body.provider_type,
    identifier: body.identifier,
    name: body.name,
    clientId: body.client_id,
    clientSecret: body.client_secret,
    acceptableClientIds: body.acceptable_client_ids,
    scopes: body.scopes,
    pkceEnabled: body.pkce_enabled,
    attributeMapping: body.attribute_mapping,
    customClaimsAllowlist: body.custom_claims_allowlist,
    authorizationParams: body.authorization_params,
    enabled: body.enabled,
    emailOptional: body.email_optional,
    issuer: body.issuer,
    discoveryUrl: body.discovery_url,
    skipNonceCheck: body.skip_nonce_check,
    authorizationUrl: body.authorization_url,
    tokenUrl: body.token_url,
    userinfoUrl: body.userinfo_url,
    jwksUri: body.jwks_uri
  }))
