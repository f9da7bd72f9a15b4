import * as Refusal from "./Refusal.js"

/**
 * POST /sso (supabase-js `signInWithSSO`; Supabase Auth's `SingleSignOn`): single sign-on is
 * not offered, and it answers as Supabase Auth does with SAML off (404 `saml_provider_disabled`,
 * "SAML 2.0 is disabled"), so a client shows that rather than a bare 404 it cannot read.
 */
export const handle = () => new Refusal.SamlDisabled()
