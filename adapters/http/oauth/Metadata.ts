const clientAuthMethods = ["none", "client_secret_basic", "client_secret_post"]

/** RFC 8414 authorization server metadata; the issuer is BASE_URL, the authorize endpoint `BASE_URL/`. */
export const document = (issuer: string, introspection: boolean) => {
  const base = issuer
  return {
    issuer: base,
    authorization_endpoint: `${base}/`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    revocation_endpoint: `${base}/revoke`,
    ...(introspection
      ? {
          introspection_endpoint: `${base}/introspect`,
          // The resource server presents the shared INTROSPECTION_TOKEN as a Bearer token.
          introspection_endpoint_auth_methods_supported: ["bearer"]
        }
      : {}),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    authorization_response_iss_parameter_supported: true,
    // draft-ietf-oauth-client-id-metadata-document: an https client_id names the client's metadata.
    client_id_metadata_document_supported: true
  }
}
