-- The auth service's users and identities, shaped after Supabase Auth's `auth.users` and
-- `auth.identities` (same column names and types where we keep a column), so that a Supabase
-- project's rows can be imported with a plain INSERT … SELECT. Every table and index name
-- carries the DB_NAMESPACE prefix: two namespaces share the `auth` schema side by side.
--
-- Left out on purpose: Supabase Auth's one-time token columns (confirmation_token,
-- recovery_token, email_change_token_*, phone_change_token, reauthentication_token), which
-- hold tokens in the clear; no token is stored here but as a digest, in tables of their own.
-- Also instance_id and is_super_admin, which Supabase Auth no longer reads.

CREATE TABLE auth.{{prefix}}users (
  id                       uuid PRIMARY KEY,
  aud                      varchar(255) NOT NULL,
  role                     varchar(255) NOT NULL,
  -- Stored trimmed and lower-cased (domain/User.ts `Email`), as Supabase Auth stores it.
  email                    varchar(255),
  -- A PHC string (argon2id here; bcrypt `$2a$` from an import); NULL: no password.
  encrypted_password       varchar(255),
  email_confirmed_at       timestamptz,
  invited_at               timestamptz,
  confirmation_sent_at     timestamptz,
  recovery_sent_at         timestamptz,
  email_change             varchar(255),
  email_change_sent_at     timestamptz,
  email_change_confirm_status smallint NOT NULL DEFAULT 0
    CHECK (email_change_confirm_status BETWEEN 0 AND 2),
  last_sign_in_at          timestamptz,
  raw_app_meta_data        jsonb NOT NULL DEFAULT '{}'::jsonb,
  raw_user_meta_data       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at               timestamptz NOT NULL,
  updated_at               timestamptz NOT NULL,
  -- E.164 (domain/User.ts `Phone`).
  phone                    text,
  phone_confirmed_at       timestamptz,
  phone_change             text,
  phone_change_sent_at     timestamptz,
  confirmed_at             timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
  reauthentication_sent_at timestamptz,
  banned_until             timestamptz,
  -- Soft deletion clears what identifies the user and sets this; such rows are never found.
  deleted_at               timestamptz,
  is_sso_user              boolean NOT NULL DEFAULT false,
  is_anonymous             boolean NOT NULL DEFAULT false,
  CONSTRAINT {{prefix}}users_phone_key UNIQUE (phone)
);
-- As in Supabase Auth: SSO accounts may share an address with each other and with one
-- non-SSO account, which is the one sign-in by email finds.
CREATE UNIQUE INDEX {{prefix}}users_email_partial_key ON auth.{{prefix}}users (email) WHERE (is_sso_user = false);
-- The admin list: an audience, newest first (or oldest first), page by page.
CREATE INDEX {{prefix}}users_aud_created_at_idx ON auth.{{prefix}}users (aud, created_at, id)
  WHERE deleted_at IS NULL;
CREATE INDEX {{prefix}}users_is_anonymous_idx ON auth.{{prefix}}users (is_anonymous);

CREATE TABLE auth.{{prefix}}identities (
  id              uuid PRIMARY KEY,
  -- The subject at the provider; the user's id for the `email` and `phone` providers.
  provider_id     text NOT NULL,
  user_id         uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  identity_data   jsonb NOT NULL DEFAULT '{}'::jsonb,
  provider        text NOT NULL,
  last_sign_in_at timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  email           text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
  CONSTRAINT {{prefix}}identities_provider_id_provider_unique UNIQUE (provider_id, provider)
);
CREATE INDEX {{prefix}}identities_user_id_idx ON auth.{{prefix}}identities (user_id);
CREATE INDEX {{prefix}}identities_email_idx ON auth.{{prefix}}identities (email text_pattern_ops);
