-- Rate-limit counters are written on every registration, all by one row per source address.
-- Unlogged, a transaction that touches only them commits without waiting for the WAL flush, so
-- the row lock is held for microseconds rather than a disk sync. The price: after a crash or a
-- failover the counters start again from zero, which a rate limit can afford.
ALTER TABLE oauth.rate_limits SET UNLOGGED;
