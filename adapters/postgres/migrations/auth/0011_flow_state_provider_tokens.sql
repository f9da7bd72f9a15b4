-- A provider sign-in's own tokens in the PKCE flow, waiting for the code exchange's answer
-- (`provider_token`, `provider_refresh_token`), sealed under the authorization code, which is
-- kept here only as a digest: the row alone does not open them (application/auth/ProviderTokenSeal.ts).
ALTER TABLE auth.{{prefix}}flow_states ADD COLUMN provider_tokens text;
