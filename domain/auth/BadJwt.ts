import * as Schema from "effect/Schema"

/** Why a presented access token was refused. */
export const Reason = Schema.Literal(
  "malformed",
  "algorithm_not_allowed",
  "unknown_key",
  "bad_signature",
  "expired",
  "not_yet_valid"
)
export type Reason = typeof Reason.Type

/**
 * A bearer token that does not verify: Supabase Auth's `bad_jwt` (403). The message is the one
 * Supabase Auth sends, its JWT library's wording after `unable to parse or verify signature, `:
 * clients and their users match on those words, so they are kept to the letter.
 */
export class BadJwt extends Schema.TaggedError<BadJwt>()("BadJwt", {
  reason: Reason,
  message: Schema.String
}) {}

const prefix = "invalid JWT: unable to parse or verify signature, "

const make = (reason: Reason, detail: string) => new BadJwt({ reason, message: `${prefix}${detail}` })

/** Not three base64url parts of JSON, or claims of the wrong types. */
export const malformed = (detail: string) => make("malformed", `token is malformed: ${detail}`)

/** No `alg` in the header, or one no JWS library knows. */
export const algorithmUnavailable = (alg: unknown) =>
  make(
    "algorithm_not_allowed",
    typeof alg === "string" && alg !== ""
      ? "token is unverifiable: signing method (alg) is unavailable"
      : "token is unverifiable: signing method (alg) is unspecified"
  )

/** An algorithm outside `JWT_VALID_METHODS`. */
export const algorithmNotAllowed = (alg: string) =>
  make("algorithm_not_allowed", `token signature is invalid: signing method ${alg} is invalid`)

/** No key with the token's `kid`, and no fallback to the JWT secret. */
export const unknownKey = (kid: unknown, alg: string) =>
  make(
    "unknown_key",
    `token is unverifiable: error while executing keyfunc: unrecognized JWT kid ${typeof kid === "string" ? kid : "<nil>"} for algorithm ${alg}`
  )

const verificationErrors: Readonly<Record<string, string>> = {
  RS256: "crypto/rsa: verification error",
  ES256: "crypto/ecdsa: verification error",
  EdDSA: "ed25519: verification error",
  HS256: "signature is invalid",
  RS512: "crypto/rsa: verification error",
  ES512: "crypto/ecdsa: verification error"
}

/** The signature does not match the key named by `kid` (or the secret). */
export const badSignature = (alg: string) =>
  make("bad_signature", `token signature is invalid: ${verificationErrors[alg] ?? "signature is invalid"}`)

/** The key named by `kid` is of another type than the token's algorithm needs. */
export const keyOfInvalidType = () =>
  make("bad_signature", "token signature is invalid: key is of invalid type")

/** How Go prints a whole number of seconds (`time.Duration.String`): `45s`, `1m30s`, `2h0m5s`. */
const goDuration = (totalSeconds: number): string => {
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`
  if (minutes > 0) return `${minutes}m${seconds}s`
  return `${seconds}s`
}

/** `exp` is at or before `now`; `overdueMillis` is how long ago. */
export const expired = (overdueMillis: number) =>
  make(
    "expired",
    `token has invalid claims: token is expired by ${goDuration(Math.max(0, Math.floor(overdueMillis / 1000)))}`
  )

/** `nbf` is after `now`. */
export const notYetValid = () => make("not_yet_valid", "token has invalid claims: token is not valid yet")
