-- A user's approval of a client (dynamic and metadata-document clients ask once).
CREATE TABLE oauth.consents (
  user_id    uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  client_id  text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  granted_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, client_id)
);
CREATE INDEX consents_client_id_idx ON oauth.consents (client_id);

-- Logins back from the upstream, waiting on the consent page; keyed by the form token's hash.
CREATE TABLE oauth.pending_consents (
  token_hash     text PRIMARY KEY,
  user_id        uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  client_id      text NOT NULL REFERENCES oauth.clients (id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text,
  client_state   text,
  scope          text,
  resource       text,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX pending_consents_expires_at_idx ON oauth.pending_consents (expires_at);

-- Browser sessions of confidential web clients' users; keyed by the cookie's hash.
CREATE TABLE oauth.sessions (
  token_hash text PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES oauth.users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at_idx ON oauth.sessions (expires_at);
