-- How each session's user signed in (Supabase Auth keeps it in `mfa_amr_claims`): the `amr`
-- claim of every access token of the session, refreshed ones included.
ALTER TABLE auth.{{prefix}}sessions ADD COLUMN amr jsonb NOT NULL DEFAULT '[]'::jsonb;
