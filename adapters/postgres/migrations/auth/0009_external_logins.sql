-- Sign-ins at external providers on their way (domain/auth/ExternalLogin.ts): what the
-- `/authorize` request asked for, found again by the digest of the `state` sent to the
-- provider. Rows live ten minutes; a callback takes its row (DELETE … RETURNING), and rows
-- nobody came back for are deleted by later sign-ins.
CREATE TABLE auth.{{prefix}}external_logins (
  state_hash            text PRIMARY KEY,
  provider              text NOT NULL,
  redirect_to           text NOT NULL,
  code_challenge        text,
  code_challenge_method text CHECK (code_challenge_method IN ('s256', 'plain')),
  linking_user_id       uuid REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  handshake             text,
  created_at            timestamptz NOT NULL,
  expires_at            timestamptz NOT NULL
);
CREATE INDEX {{prefix}}external_logins_expires_at_idx ON auth.{{prefix}}external_logins (expires_at);
