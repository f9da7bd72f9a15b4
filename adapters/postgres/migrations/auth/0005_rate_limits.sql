-- Request counters of the auth service's rate limits (RATE_LIMIT_TOKEN_REFRESH,
-- RATE_LIMIT_ANONYMOUS_USERS), shared by every instance: one row per key and window, as the
-- oauth service's. Unlogged: a counter lost in a crash only forgives a few requests, and every
-- request writes here.
CREATE UNLOGGED TABLE auth.{{prefix}}rate_limits (
  key          text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  count        integer NOT NULL
);
