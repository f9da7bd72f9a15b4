-- PKCE flow states of the mailed flows (domain/auth/FlowState.ts), after Supabase Auth's
-- `flow_state`: the code challenge of the request that sent the mail, and, once its link was
-- followed, the digest of the authorization code the application exchanges at
-- /token?grant_type=pkce. A one-time token names the flow state it belongs to.
CREATE TABLE auth.{{prefix}}flow_states (
  id                    uuid PRIMARY KEY,
  user_id               uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  code_challenge        text NOT NULL,
  code_challenge_method text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
  authentication_method text NOT NULL,
  auth_code_hash        text,
  auth_code_issued_at   timestamptz,
  created_at            timestamptz NOT NULL,
  CONSTRAINT {{prefix}}flow_states_auth_code_hash_unique UNIQUE (auth_code_hash)
);
CREATE INDEX {{prefix}}flow_states_created_at_idx ON auth.{{prefix}}flow_states (created_at);

ALTER TABLE auth.{{prefix}}one_time_tokens
  ADD COLUMN flow_state_id uuid REFERENCES auth.{{prefix}}flow_states (id) ON DELETE SET NULL;
