-- Clients described by a Client ID Metadata Document (their client_id is the document's https
-- URL). They get a row like any other client because codes, pending logins and tokens reference
-- oauth.clients (id); the row mirrors the document and is refreshed whenever it is fetched.
-- The reaper's rule (origin 'dynamic' AND type 'public') and its partial index leave them alone.
ALTER TABLE oauth.clients DROP CONSTRAINT clients_origin_check;
ALTER TABLE oauth.clients ADD CONSTRAINT clients_origin_check
  CHECK (origin IN ('dynamic', 'seeded', 'builtin', 'metadata_document'));
