import * as Option from "effect/Option"
import type { CustomProvider, Discovery } from "../../../../domain/auth/CustomProvider.js"

/** A discovery document as Supabase Auth shows it (`discovery_document`); empty lists left out. */
const discoveryJson = (document: Discovery) => ({
  issuer: document.issuer,
  authorization_endpoint: document.authorization_endpoint,
  token_endpoint: document.token_endpoint,
  ...(document.userinfo_endpoint === undefined ? {} : { userinfo_endpoint: document.userinfo_endpoint }),
  jwks_uri: document.jwks_uri,
  ...listed("scopes_supported", document.scopes_supported),
  ...listed("response_types_supported", document.response_types_supported),
  ...listed("grant_types_supported", document.grant_types_supported),
  ...listed("subject_types_supported", document.subject_types_supported)
})

const listed = (name: string, values: ReadonlyArray<string> | undefined) =>
  values === undefined || values.length === 0 ? {} : { [name]: values }

/** An optional text field, left out when unset (Go's `omitempty` on a nil pointer). */
const optional = (name: string, value: Option.Option<string>) =>
  Option.match(value, { onNone: () => ({}), onSome: (text) => ({ [name]: text }) })

/**
 * A custom provider as the admin API answers it, field for field as Supabase Auth's
 * `CustomOAuthProvider`; the client secret is never part of it.
 */
export const encode = (provider: CustomProvider) => ({
  id: provider.id,
  provider_type: provider.providerType,
  identifier: provider.identifier,
  name: provider.name,
  client_id: provider.clientId,
  acceptable_client_ids: provider.acceptableClientIds,
  scopes: provider.scopes,
  pkce_enabled: provider.pkceEnabled,
  attribute_mapping: provider.attributeMapping,
  custom_claims_allowlist: provider.customClaimsAllowlist,
  authorization_params: provider.authorizationParams,
  enabled: provider.enabled,
  email_optional: provider.emailOptional,
  ...optional("issuer", provider.issuer),
  ...optional("discovery_url", provider.discoveryUrl),
  skip_nonce_check: provider.skipNonceCheck,
  ...Option.match(provider.discovery, {
    onNone: () => ({}),
    onSome: (document) => ({ discovery_document: discoveryJson(document) })
  }),
  ...optional("authorization_url", provider.authorizationUrl),
  ...optional("token_url", provider.tokenUrl),
  ...optional("userinfo_url", provider.userinfoUrl),
  ...optional("jwks_uri", provider.jwksUri),
  created_at: provider.createdAt.toISOString(),
  updated_at: provider.updatedAt.toISOString()
})
