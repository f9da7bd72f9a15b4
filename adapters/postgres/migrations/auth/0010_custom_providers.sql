-- Providers added at run time through the admin API (domain/auth/CustomProvider.ts), with
-- Supabase Auth's columns. The client secret is kept as it is: it is presented to the provider
-- at every sign-in, so no digest will do; like the signing keys' private halves, the database's
-- access control is what protects it, and the admin API never shows it.
CREATE TABLE auth.{{prefix}}custom_oauth_providers (
  id                      uuid PRIMARY KEY,
  provider_type           text NOT NULL CHECK (provider_type IN ('oauth2', 'oidc')),
  identifier              text NOT NULL UNIQUE
                            CHECK (identifier ~ '^custom:[a-z0-9:-]{0,42}[a-z0-9]$'),
  name                    text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  client_id               text NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 512),
  client_secret           text NOT NULL,
  acceptable_client_ids   text[] NOT NULL DEFAULT '{}',
  scopes                  text[] NOT NULL DEFAULT '{}',
  pkce_enabled            boolean NOT NULL DEFAULT true,
  attribute_mapping       jsonb NOT NULL DEFAULT '{}',
  custom_claims_allowlist text[] NOT NULL DEFAULT '{}',
  authorization_params    jsonb NOT NULL DEFAULT '{}',
  enabled                 boolean NOT NULL DEFAULT true,
  email_optional          boolean NOT NULL DEFAULT false,
  issuer                  text CHECK (char_length(issuer) <= 2048),
  discovery_url           text CHECK (char_length(discovery_url) <= 2048),
  skip_nonce_check        boolean NOT NULL DEFAULT false,
  cached_discovery        jsonb,
  authorization_url       text CHECK (char_length(authorization_url) <= 2048),
  token_url               text CHECK (char_length(token_url) <= 2048),
  userinfo_url            text CHECK (char_length(userinfo_url) <= 2048),
  jwks_uri                text CHECK (char_length(jwks_uri) <= 2048),
  created_at              timestamptz NOT NULL,
  updated_at              timestamptz NOT NULL,
  CHECK (provider_type <> 'oidc' OR issuer IS NOT NULL),
  CHECK (provider_type <> 'oauth2' OR (authorization_url IS NOT NULL AND token_url IS NOT NULL AND userinfo_url IS NOT NULL))
);
