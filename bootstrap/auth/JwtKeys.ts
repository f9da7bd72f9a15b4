import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"

/** The signing algorithms the auth service issues and accepts tokens with. */
export const algorithms = ["HS256", "RS256", "ES256", "EdDSA", "RS512", "ES512"] as const
export type Algorithm = (typeof algorithms)[number]

export const isAlgorithm = (value: string): value is Algorithm =>
  algorithms.some((algorithm) => algorithm === value)

// The JWK key type each algorithm needs (RFC 7518 §6, RFC 8037 for OKP).
const keyTypeOf: Readonly<Record<Algorithm, string>> = {
  HS256: "oct",
  RS256: "RSA",
  ES256: "EC",
  EdDSA: "OKP",
  RS512: "RSA",
  ES512: "EC"
}

/**
 * One entry of `JWT_KEYS`: what the configuration needs to know about a key, and the JWK itself,
 * private parts included, for the signer to import (with jose) when the service starts.
 */
export interface JwtKey {
  readonly kid: string
  readonly alg: Algorithm
  readonly keyOps: ReadonlyArray<string>
  readonly jwk: Redacted.Redacted<Readonly<Record<string, unknown>>>
}

/** The key that signs: the one whose `key_ops` include `sign` (the parser allows exactly one). */
export const signingKey = (keys: ReadonlyArray<JwtKey>): JwtKey | undefined =>
  keys.find((key) => key.keyOps.includes("sign"))

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== ""

const isStringList = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.length > 0 && value.every(isNonEmptyString)

const readKey = (jwk: unknown, position: number): Either.Either<JwtKey, string> => {
  const key = `key ${position}`
  if (!isRecord(jwk)) return Either.left(`${key}: expected a JWK object`)
  const { kty, kid, alg, key_ops: keyOps } = jwk
  if (!isNonEmptyString(kid)) return Either.left(`${key}: expected kid, a non-empty string`)
  if (typeof alg !== "string" || !isAlgorithm(alg)) {
    return Either.left(`${key}: expected alg ${algorithms.join(", ")}`)
  }
  if (kty !== keyTypeOf[alg]) return Either.left(`${key}: alg ${alg} needs kty ${keyTypeOf[alg]}`)
  // Without `key_ops` a key only verifies, as in Supabase Auth, which signs with the one key
  // whose operations include `sign`.
  if (keyOps !== undefined && !isStringList(keyOps))
    return Either.left(`${key}: expected key_ops, a list such as ["sign","verify"]`)
  const operations = keyOps ?? []
  // The signing key must carry its private part: `k` of a symmetric key, `d` of the others.
  if (operations.includes("sign") && !isNonEmptyString(alg === "HS256" ? jwk.k : jwk.d)) {
    return Either.left(`${key}: a signing key needs its private part (${alg === "HS256" ? "k" : "d"})`)
  }
  return Either.right({ kid, alg, keyOps: operations, jwk: Redacted.make(jwk) })
}

/**
 * Reads `JWT_KEYS`: a JSON array of JWKs, each with `kid`, `alg` and `key_ops`, exactly one of
 * them signing, as Supabase Auth requires. An empty array is no keys. Messages never quote the
 * value, which holds private keys.
 */
export const parse = (text: string): Either.Either<ReadonlyArray<JwtKey>, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Either.left("expected a JSON array of JWKs (the value is no valid JSON)")
  }
  // `null` is no keys to Supabase Auth's decoder, as `[]` is.
  if (json === null) return Either.right([])
  if (!Array.isArray(json)) return Either.left("expected a JSON array of JWKs")
  const keys: Array<JwtKey> = []
  const seen = new Set<string>()
  for (const [index, jwk] of json.entries()) {
    const described = readKey(jwk, index + 1)
    if (Either.isLeft(described)) return Either.left(described.left)
    if (seen.has(described.right.kid)) {
      return Either.left(`key ${index + 1}: kid ${described.right.kid} is used by an earlier key`)
    }
    seen.add(described.right.kid)
    keys.push(described.right)
  }
  const signing = keys.filter((key) => key.keyOps.includes("sign")).length
  if (keys.length > 0 && signing !== 1) {
    return Either.left(`expected exactly one key whose key_ops include sign, found ${signing}`)
  }
  return Either.right(keys)
}

/** The entries of a `JWT_VALID_METHODS` list as written. */
export const methodNames = (text: string): ReadonlyArray<string> =>
  text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

/**
 * Reads `JWT_VALID_METHODS`: a comma-separated list of algorithms. Supabase Auth takes any name;
 * those this service cannot verify with (`RS512`, …) admit nothing here, and ConfigWarnings
 * names them. A list of no name at all is refused: it cannot mean anything.
 */
export const parseMethods = (text: string): Either.Either<ReadonlyArray<Algorithm>, string> => {
  const methods = methodNames(text)
  return methods.length > 0
    ? Either.right(methods.filter(isAlgorithm))
    : Either.left(`expected a comma-separated list of ${algorithms.join(", ")}`)
}
