-- Sessions and their refresh tokens, shaped after Supabase Auth's `auth.sessions` and
-- `auth.refresh_tokens`. A session is also the refresh-token family of its sign-in
-- (domain/auth/Session.ts): `generation` is that of its one live token, `revoked_at` is set by
-- logout and by a detected reuse. A token is kept only as its SHA-256 digest
-- (docs/decisions/0003); an import hashes Supabase Auth's plaintext `token` column.

CREATE TABLE auth.{{prefix}}sessions (
  id           uuid PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  factor_id    uuid,
  aal          text NOT NULL DEFAULT 'aal1' CHECK (aal IN ('aal1', 'aal2', 'aal3')),
  not_after    timestamptz,
  -- When the live refresh token was minted; NULL until the first refresh.
  refreshed_at timestamptz,
  user_agent   text,
  ip           inet,
  tag          text,
  generation   integer NOT NULL DEFAULT 0,
  revoked_at   timestamptz
);
CREATE INDEX {{prefix}}sessions_user_id_idx ON auth.{{prefix}}sessions (user_id);
CREATE INDEX {{prefix}}sessions_not_after_idx ON auth.{{prefix}}sessions (not_after DESC);

CREATE TABLE auth.{{prefix}}refresh_tokens (
  id           bigserial PRIMARY KEY,
  token_hash   text NOT NULL,
  user_id      uuid NOT NULL,
  -- The digest of the token this one replaced; NULL for a session's first.
  parent       text,
  session_id   uuid NOT NULL REFERENCES auth.{{prefix}}sessions (id) ON DELETE CASCADE,
  generation   integer NOT NULL,
  revoked      boolean NOT NULL DEFAULT false,
  -- Set on the live token's parent only, while a reuse interval is configured: the live token
  -- sealed under a key derived from the parent token, which only its holder can derive
  -- (docs/decisions/0008). Cleared when the session rotates again or is revoked.
  sealed_child text,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  CONSTRAINT {{prefix}}refresh_tokens_token_hash_unique UNIQUE (token_hash),
  CONSTRAINT {{prefix}}refresh_tokens_session_generation_unique UNIQUE (session_id, generation)
);
CREATE INDEX {{prefix}}refresh_tokens_updated_at_idx ON auth.{{prefix}}refresh_tokens (updated_at DESC);
