import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * A client's proof of identity at the token and revocation endpoints by a JWT signed with its
 * own key (RFC 7521 §4.2, RFC 7523 §2.2 and §3: `private_key_jwt`). The signature is checked
 * against the client's published keys by an adapter; what the claims must say is decided here.
 */

/** The only `client_assertion_type` there is for a JWT. */
export const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/**
 * Asymmetric algorithms only: a symmetric one would verify with a key the client published,
 * that is, with a key anyone can read. `none` is never acceptable.
 */
export const signingAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519"
] as const

/** How far our clock and the client's may disagree. */
export const clockSkew = Duration.seconds(60)

/**
 * The longest an assertion may still be valid when presented. Clients make one per request and
 * give it a minute or so; a longer one is a bearer credential worth stealing, and the ids of
 * used assertions are kept until their expiry, which this bounds.
 */
export const maxLifetime = Duration.hours(1)

/** The claims RFC 7523 §3 asks for; others are ignored. Times are NumericDate (seconds). */
export class Claims extends Schema.Class<Claims>("ClientAssertionClaims")({
  iss: Schema.String,
  sub: Schema.String,
  aud: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  exp: Schema.Number,
  // RFC 7523 makes it optional; we require it, as replay protection is keyed on it.
  jti: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(512)),
  iat: Schema.optional(Schema.Number),
  nbf: Schema.optional(Schema.Number)
}) {}

/** What the verifier expects: the client the request names and the audiences that mean us. */
export interface Expected {
  readonly clientId: string
  /** Our issuer identifier and the endpoint URLs an assertion may be addressed to. */
  readonly audiences: ReadonlyArray<string>
  readonly now: Date
}

/** An acceptable assertion: its id, to be refused when seen again, until it could no longer pass anyway. */
export interface Accepted {
  readonly jti: string
  readonly rememberUntil: Date
}

const at = (numericDate: number): number => numericDate * 1000

/** Judges an assertion's payload (already known to be signed by one of the client's keys). */
export const judge = (payload: unknown, expected: Expected): Either.Either<Accepted, string> =>
  Either.flatMap(
    Schema.decodeUnknownEither(Claims, { onExcessProperty: "ignore" })(payload).pipe(
      Either.mapLeft(() => "the assertion must carry iss, sub, aud, exp and jti")
    ),
    (claims) => {
      const now = expected.now.getTime()
      const skew = Duration.toMillis(clockSkew)
      // RFC 7523 §3 items 1 and 2: the client is both issuer and subject.
      if (claims.iss !== expected.clientId || claims.sub !== expected.clientId) {
        return Either.left("iss and sub must both be the client_id")
      }
      const audiences = typeof claims.aud === "string" ? [claims.aud] : claims.aud
      if (!audiences.some((audience) => expected.audiences.includes(audience))) {
        return Either.left("aud must be this server's issuer or token endpoint")
      }
      if (at(claims.exp) + skew <= now) return Either.left("the assertion has expired")
      if (at(claims.exp) - now > Duration.toMillis(maxLifetime)) {
        return Either.left(`the assertion must expire within ${Duration.format(maxLifetime)}`)
      }
      if (claims.nbf !== undefined && at(claims.nbf) - skew > now) {
        return Either.left("the assertion is not valid yet")
      }
      if (claims.iat !== undefined && at(claims.iat) - skew > now) {
        return Either.left("the assertion was issued in the future")
      }
      return Either.right({ jti: claims.jti, rememberUntil: new Date(at(claims.exp) + skew) })
    }
  )
