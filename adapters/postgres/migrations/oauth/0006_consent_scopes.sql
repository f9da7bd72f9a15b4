-- The scopes each approval covers: a later request for more is asked again. Approvals given
-- before this column existed cover none, so a request naming a scope is asked once more.
ALTER TABLE oauth.consents ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
