-- The keys access tokens are signed with, shared by every instance (docs/decisions/0009).
--
-- private_jwk holds the whole private key as a JWK, private members included. Unlike tokens,
-- codes and client secrets, which are stored as SHA-256 digests because we only ever compare
-- a presented value with them, a signing key must be used, not recognised: signing needs the
-- private key itself, and a digest of it signs nothing. What protects it is the database's
-- own access control and encryption at rest; the service never sends it out (the JWKS is
-- built from an allow-list of public members) and wipes it when the key is retired.
CREATE TABLE auth.{{prefix}}signing_keys (
  kid                 text PRIMARY KEY,
  algorithm           text NOT NULL CHECK (algorithm IN ('RS256', 'ES256', 'EdDSA')),
  status              text NOT NULL CHECK (status IN ('standby', 'current', 'previous', 'retired')),
  private_jwk         jsonb,
  created_at          timestamptz NOT NULL,
  activated_at        timestamptz,
  stopped_signing_at  timestamptz,
  retired_at          timestamptz,
  CHECK ((status = 'retired') = (private_jwk IS NULL))
);

-- At most one current key: of instances that create a first key at once, one insert wins, and
-- the two updates of a rotation cannot leave two current keys.
CREATE UNIQUE INDEX {{prefix}}signing_keys_one_current ON auth.{{prefix}}signing_keys ((true))
  WHERE status = 'current';
