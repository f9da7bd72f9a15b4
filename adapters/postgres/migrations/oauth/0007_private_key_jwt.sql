-- Metadata-document clients that authenticate with private_key_jwt (RFC 7523): where their
-- public keys are published. The row stands in for the document while its publisher is down,
-- so it must keep saying that the client signs: without it, the client would pass unsigned.
ALTER TABLE oauth.clients ADD COLUMN jwks_uri text;
ALTER TABLE oauth.clients ADD CONSTRAINT clients_jwks_uri_public
  CHECK (jwks_uri IS NULL OR type = 'public');

-- The ids (jti, as SHA-256 hex) of accepted client assertions, kept until the assertion could
-- no longer pass anyway, so that none is accepted twice, by any instance. The reaper purges
-- the expired ones.
CREATE TABLE oauth.used_assertions (
  client_id  text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  jti_hash   text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (client_id, jti_hash)
);
CREATE INDEX used_assertions_expires_at_idx ON oauth.used_assertions (expires_at);
