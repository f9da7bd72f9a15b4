import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as AccessTokenClaims from "../../../domain/auth/AccessTokenClaims.js"
import type * as BadJwt from "../../../domain/auth/BadJwt.js"
import type * as SigningKey from "../../../domain/auth/SigningKey.js"

/** A token that verified: its protected header and its claims. */
export interface Verified {
  readonly alg: SigningKey.Algorithm
  /** The header's `kid`; none for a token signed with the JWT secret without one. */
  readonly kid: Option.Option<string>
  readonly claims: AccessTokenClaims.VerifiedClaims
  /** Every claim as sent, those `claims` has no field for included. */
  readonly payload: Readonly<Record<string, unknown>>
}

/** The JSON Web Key Set (RFC 7517 §5) served at `/.well-known/jwks.json`: public keys only. */
export interface Jwks {
  readonly keys: ReadonlyArray<SigningKey.Jwk>
}

/**
 * Access-token JWTs: signed with the signing key of the moment, verified against every key
 * that verifies (`KeyRing`), refused as Supabase Auth refuses them. The keys are configured
 * ones (`JwtSettings.keys`, `JWT_SECRET`) and stored ones (`SigningKeyStore`), read again after
 * a short time so that rotations by other instances are seen.
 */
export class AccessTokens extends Context.Tag("latchkey/auth/AccessTokens")<
  AccessTokens,
  {
    /**
     * A compact JWS of the claims with the signing key, its `kid` in the header. Dies when there
     * is no signing key: `EnsureSigningKey` runs before the service serves.
     */
    readonly sign: (claims: AccessTokenClaims.AccessTokenClaims) => Effect.Effect<Redacted.Redacted<string>>
    /** Checks the algorithm, the signature, `exp` and `nbf` at the clock's now, and decodes the claims. */
    readonly verify: (token: string) => Effect.Effect<Verified, BadJwt.BadJwt>
    /** The public keys that verify now, the signing key first. */
    readonly jwks: Effect.Effect<Jwks>
    /** Fresh key material for a new stored key: the private JWK, private members included. */
    readonly generateKey: (algorithm: SigningKey.StoredAlgorithm) => Effect.Effect<SigningKey.Jwk>
  }
>() {}
