-- The reaper deletes sessions a day after they ended (application/auth/ReapExpired.ts); live
-- sessions, most of the table, stay out of this index.
CREATE INDEX {{prefix}}sessions_revoked_at_idx ON auth.{{prefix}}sessions (revoked_at) WHERE revoked_at IS NOT NULL;
