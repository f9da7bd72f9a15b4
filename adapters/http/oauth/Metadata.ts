import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OAuthSettings } from "../../../application/oauth/OAuthSettings.js"
import * as ClientAssertion from "../../../domain/oauth/ClientAssertion.js"
import { json } from "../HttpMessage.js"
import { OAuthHttpConfig } from "./OAuthHttpConfig.js"

/** `private_key_jwt` is for metadata-document clients that name a `jwks_uri` (RFC 7523). */
const clientAuthMethods = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
const signingAlgorithms = [...ClientAssertion.signingAlgorithms]

/**
 * RFC 8414 §2: every member that applies to this server. The issuer is BASE_URL and the
 * authorize endpoint `BASE_URL/`; no `jwks_uri` (our tokens are opaque, nothing we issue is
 * signed); the algorithms we accept for clients' signed assertions.
 */
export const document = (
  issuer: string,
  options: { readonly introspection: boolean; readonly scopes: ReadonlyArray<string> }
) => ({
  issuer,
  authorization_endpoint: `${issuer}/`,
  token_endpoint: `${issuer}/token`,
  registration_endpoint: `${issuer}/register`,
  // RECOMMENDED. Scopes are passed through to the tokens as requested; SCOPES_SUPPORTED names
  // the ones worth advertising (RFC 8414 lets a server leave some out).
  scopes_supported: options.scopes,
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token"],
  token_endpoint_auth_methods_supported: clientAuthMethods,
  token_endpoint_auth_signing_alg_values_supported: signingAlgorithms,
  revocation_endpoint: `${issuer}/revoke`,
  revocation_endpoint_auth_methods_supported: clientAuthMethods,
  revocation_endpoint_auth_signing_alg_values_supported: signingAlgorithms,
  ...(options.introspection
    ? {
        introspection_endpoint: `${issuer}/introspect`,
        // The resource server presents the shared INTROSPECTION_TOKEN as a Bearer token.
        introspection_endpoint_auth_methods_supported: ["bearer"]
      }
    : {}),
  code_challenge_methods_supported: ["S256"],
  // Our consent and error pages are written in English.
  ui_locales_supported: ["en"],
  // RFC 9207.
  authorization_response_iss_parameter_supported: true,
  // draft-ietf-oauth-client-id-metadata-document: an https client_id names the client's metadata.
  client_id_metadata_document_supported: true
})

/** GET /.well-known/oauth-authorization-server; the same for every caller, so cacheable. */
export const handle = () =>
  Effect.zipWith(OAuthSettings, OAuthHttpConfig, (settings, config) =>
    json(
      document(settings.issuer, {
        introspection: Option.isSome(config.introspectionToken),
        scopes: config.scopesSupported
      }),
      200,
      { "cache-control": "public, max-age=3600" }
    )
  )
