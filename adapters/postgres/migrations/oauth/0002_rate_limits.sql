-- Rate-limit counters shared by every instance: one row per key, reset when its window moves on.
CREATE TABLE oauth.rate_limits (
  key          text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  count        integer NOT NULL
);
