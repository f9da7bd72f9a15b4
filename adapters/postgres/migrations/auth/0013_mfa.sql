-- Multi-factor authentication and passkeys (docs/decisions/0015), shaped after Supabase Auth's
-- `mfa_factors`, `mfa_challenges`, `webauthn_credentials` and `webauthn_challenges` so that a
-- Supabase project's rows import column for column. Its enum types (`factor_type`,
-- `factor_status`) are text with checks here, as `sessions.aal` is. A session's `amr` stays the
-- jsonb column of migration 0004 (one entry per method, as `mfa_amr_claims` keeps them), so
-- there is no `mfa_amr_claims` table; an import folds its rows into that column.

-- A user's verification methods (domain/auth/Factor.ts). `secret` is a TOTP factor's base32
-- secret, stored as Supabase Auth stores it without DB_ENCRYPTION: codes are computed from it,
-- so it cannot be a digest. `last_totp_step` is ours: the time step of the last code accepted,
-- which no later code may repeat. `failed_attempts` and `locked_until` belong to the
-- recovery-code factor's lockout.
CREATE TABLE auth.{{prefix}}mfa_factors (
  id                           uuid PRIMARY KEY,
  user_id                      uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  friendly_name                text,
  factor_type                  text NOT NULL CHECK (factor_type IN ('totp', 'webauthn', 'phone', 'recovery_code')),
  status                       text NOT NULL CHECK (status IN ('unverified', 'verified')),
  created_at                   timestamptz NOT NULL,
  updated_at                   timestamptz NOT NULL,
  secret                       text,
  phone                        text,
  last_challenged_at           timestamptz,
  web_authn_credential         jsonb,
  web_authn_aaguid             uuid,
  last_webauthn_challenge_data jsonb,
  last_totp_step               bigint,
  failed_attempts              integer NOT NULL DEFAULT 0,
  locked_until                 timestamptz
);
-- Friendly names are unique per user where given (Supabase Auth's index ignores blank ones).
CREATE UNIQUE INDEX {{prefix}}mfa_factors_user_friendly_name_unique
  ON auth.{{prefix}}mfa_factors (friendly_name, user_id) WHERE trim(friendly_name) <> '';
-- One factor per user and number (Supabase Auth's `unique_phone_factor_per_user`).
CREATE UNIQUE INDEX {{prefix}}mfa_factors_user_phone_unique ON auth.{{prefix}}mfa_factors (user_id, phone);
-- One set of recovery codes per user.
CREATE UNIQUE INDEX {{prefix}}mfa_factors_one_recovery_code_set
  ON auth.{{prefix}}mfa_factors (user_id) WHERE factor_type = 'recovery_code';
CREATE INDEX {{prefix}}mfa_factors_user_id_created_at_idx ON auth.{{prefix}}mfa_factors (user_id, created_at);

-- Challenges of a factor (domain/auth/FactorChallenge.ts): bound to the address that asked,
-- spent by `verified_at`. A texted code is kept as its SHA-256 digest (`otp_code_hash`, where
-- Supabase Auth keeps `otp_code` itself); a WebAuthn challenge keeps what its ceremony is checked
-- against, the challenge itself only as a digest.
CREATE TABLE auth.{{prefix}}mfa_challenges (
  id                     uuid PRIMARY KEY,
  factor_id              uuid NOT NULL REFERENCES auth.{{prefix}}mfa_factors (id) ON DELETE CASCADE,
  created_at             timestamptz NOT NULL,
  verified_at            timestamptz,
  ip_address             inet NOT NULL,
  otp_code_hash          text,
  web_authn_session_data jsonb
);
CREATE INDEX {{prefix}}mfa_challenges_factor_id_idx ON auth.{{prefix}}mfa_challenges (factor_id);
CREATE INDEX {{prefix}}mfa_challenges_created_at_idx ON auth.{{prefix}}mfa_challenges (created_at DESC);

-- The codes of a recovery-code factor (domain/auth/RecoveryCodes.ts), as SHA-256 digests of
-- their canonical form; a used code keeps its row (`used_at`) so that the set's status counts it.
CREATE TABLE auth.{{prefix}}mfa_recovery_codes (
  id         uuid PRIMARY KEY,
  factor_id  uuid NOT NULL REFERENCES auth.{{prefix}}mfa_factors (id) ON DELETE CASCADE,
  code_hash  text NOT NULL,
  created_at timestamptz NOT NULL,
  used_at    timestamptz,
  CONSTRAINT {{prefix}}mfa_recovery_codes_factor_code_unique UNIQUE (factor_id, code_hash)
);

-- Passkeys (domain/auth/Passkey.ts): discoverable credentials whose user handle is the user id.
CREATE TABLE auth.{{prefix}}webauthn_credentials (
  id               uuid PRIMARY KEY,
  user_id          uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  credential_id    bytea NOT NULL,
  public_key       bytea NOT NULL,
  attestation_type text NOT NULL DEFAULT '',
  aaguid           uuid,
  sign_count       bigint NOT NULL DEFAULT 0,
  transports       jsonb NOT NULL DEFAULT '[]'::jsonb,
  backup_eligible  boolean NOT NULL DEFAULT false,
  backed_up        boolean NOT NULL DEFAULT false,
  friendly_name    text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  last_used_at     timestamptz
);
CREATE UNIQUE INDEX {{prefix}}webauthn_credentials_credential_id_key
  ON auth.{{prefix}}webauthn_credentials (credential_id);
CREATE INDEX {{prefix}}webauthn_credentials_user_id_idx ON auth.{{prefix}}webauthn_credentials (user_id);

-- Passkey challenges: a registration's belongs to its user, a sign-in's to nobody yet. A verify
-- consumes its challenge by deleting it. `session_data` keeps the challenge as a digest.
CREATE TABLE auth.{{prefix}}webauthn_challenges (
  id             uuid PRIMARY KEY,
  user_id        uuid REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  challenge_type text NOT NULL CHECK (challenge_type IN ('signup', 'registration', 'authentication')),
  session_data   jsonb NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX {{prefix}}webauthn_challenges_user_id_idx ON auth.{{prefix}}webauthn_challenges (user_id);
CREATE INDEX {{prefix}}webauthn_challenges_expires_at_idx ON auth.{{prefix}}webauthn_challenges (expires_at);
