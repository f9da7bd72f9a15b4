-- The oauth service's tables live in their own schema, so the service can share a database
-- with the auth service (which keeps its tables elsewhere) without name clashes.
-- Secrets (codes, tokens, client secrets, states) are stored only as hex SHA-256 digests.

CREATE TABLE oauth.clients (
  id            text PRIMARY KEY,
  name          text NOT NULL,
  type          text NOT NULL CHECK (type IN ('public', 'confidential')),
  origin        text NOT NULL CHECK (origin IN ('dynamic', 'seeded', 'builtin')),
  redirect_uris text[] NOT NULL,
  secret_hash   text,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  CONSTRAINT clients_secret_iff_confidential CHECK ((type = 'confidential') = (secret_hash IS NOT NULL))
);
-- The reaper's query: idle dynamic public clients, oldest activity first.
CREATE INDEX clients_idle_idx ON oauth.clients ((coalesce(last_used_at, created_at)))
  WHERE origin = 'dynamic' AND type = 'public';

-- Shaped like the auth service's users (Supabase Auth's user object), so both speak of one User.
CREATE TABLE oauth.users (
  id                   uuid PRIMARY KEY,
  aud                  text NOT NULL,
  role                 text NOT NULL,
  email                text,
  phone                text,
  email_confirmed_at   timestamptz,
  phone_confirmed_at   timestamptz,
  confirmation_sent_at timestamptz,
  invited_at           timestamptz,
  last_sign_in_at      timestamptz,
  app_metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  user_metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
  is_anonymous         boolean NOT NULL DEFAULT false,
  banned_until         timestamptz,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);

CREATE TABLE oauth.identities (
  id              uuid PRIMARY KEY,
  user_id         uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  provider        text NOT NULL,
  provider_id     text NOT NULL,
  identity_data   jsonb NOT NULL DEFAULT '{}'::jsonb,
  email           text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  last_sign_in_at timestamptz,
  CONSTRAINT identities_provider_subject_key UNIQUE (provider, provider_id)
);
CREATE INDEX identities_user_id_idx ON oauth.identities (user_id);

CREATE TABLE oauth.authorization_codes (
  code_hash      text PRIMARY KEY,
  grant_id       uuid NOT NULL,
  client_id      text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  user_id        uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text,
  scope          text,
  resource       text,
  issued_at      timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  consumed_at    timestamptz
);
CREATE INDEX authorization_codes_expires_at_idx ON oauth.authorization_codes (expires_at);

CREATE TABLE oauth.pending_logins (
  state_hash     text PRIMARY KEY,
  client_id      text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text,
  client_state   text,
  scope          text,
  resource       text,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX pending_logins_expires_at_idx ON oauth.pending_logins (expires_at);

CREATE TABLE oauth.refresh_token_families (
  id         uuid PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  client_id  text REFERENCES oauth.clients (id) ON DELETE CASCADE,
  grant_id   uuid,
  scope      text,
  resource   text,
  generation integer NOT NULL,
  rotated_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX refresh_token_families_grant_id_idx ON oauth.refresh_token_families (grant_id);
CREATE INDEX refresh_token_families_client_id_idx ON oauth.refresh_token_families (client_id);

CREATE TABLE oauth.refresh_tokens (
  token_hash text PRIMARY KEY,
  family_id  uuid NOT NULL REFERENCES oauth.refresh_token_families (id) ON DELETE CASCADE,
  generation integer NOT NULL,
  issued_at  timestamptz NOT NULL,
  CONSTRAINT refresh_tokens_family_generation_key UNIQUE (family_id, generation)
);

CREATE TABLE oauth.user_tokens (
  token_hash text PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  client_id  text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  grant_id   uuid,
  family_id  uuid REFERENCES oauth.refresh_token_families (id) ON DELETE CASCADE,
  scope      text,
  resource   text,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX user_tokens_family_id_idx ON oauth.user_tokens (family_id);
CREATE INDEX user_tokens_grant_id_idx ON oauth.user_tokens (grant_id);
CREATE INDEX user_tokens_client_id_idx ON oauth.user_tokens (client_id);
CREATE INDEX user_tokens_expires_at_idx ON oauth.user_tokens (expires_at);
