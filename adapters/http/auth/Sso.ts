import * as AuthError from "../../../application/auth/AuthError.js"

/**
 * POST /sso (supabase-js `signInWithSSO`), GET /sso/saml/metadata, POST /sso/saml/acs: single
 * sign-on is not offered, and each answers as Supabase Auth does with SAML off (404
 * `saml_provider_disabled`, "SAML 2.0 is disabled"), so a client shows that rather than a bare
 * 404 it cannot read.
 */
export const handle = () => AuthError.samlDisabled()
