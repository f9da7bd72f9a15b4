import * as Refusal from "./Refusal.js"

/**
 * GET /sso/saml/metadata (Supabase Auth's `SAMLMetadata`): single sign-on is not offered, and
 * it answers as Supabase Auth does with SAML off (404 `saml_provider_disabled`, "SAML 2.0 is
 * disabled"), as POST /sso (SignInWithSso) does.
 */
export const handle = () => new Refusal.SamlDisabled()
