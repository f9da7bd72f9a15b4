-- One-time tokens of the mailed and texted flows (domain/auth/OneTimeToken.ts), after Supabase
-- Auth's `one_time_tokens`: one live token per user and purpose, kept as two SHA-256 digests
-- (of the link token, and of the user's id with the code), never in the clear. A used token
-- keeps its row (`used_at`) until the next of its purpose replaces it, so that the spacing
-- between two mails counts from the last one sent; `failed_attempts` counts wrong codes.
CREATE TABLE auth.{{prefix}}one_time_tokens (
  id              uuid PRIMARY KEY,
  user_id         uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  purpose         text NOT NULL,
  sent_to         text NOT NULL,
  link_hash       text NOT NULL,
  code_hash       text NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  CONSTRAINT {{prefix}}one_time_tokens_user_purpose_unique UNIQUE (user_id, purpose),
  CONSTRAINT {{prefix}}one_time_tokens_link_hash_unique UNIQUE (link_hash)
);
