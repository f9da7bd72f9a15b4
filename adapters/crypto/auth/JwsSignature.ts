import { createHmac, KeyObject, timingSafeEqual, verify, type webcrypto } from "node:crypto"
import type * as SigningKey from "../../../domain/auth/SigningKey.js"

/** A key to check signatures with: a public key object, or the HS256 secret's bytes. */
export type VerifyKey = KeyObject | Uint8Array

/**
 * The verifying form of a key jose imported (a WebCrypto key): node's own key object for the
 * same key, made once per key.
 */
export const verifyKeyOf = (imported: webcrypto.CryptoKey | Uint8Array): VerifyKey =>
  imported instanceof Uint8Array ? imported : KeyObject.from(imported)

const base64url = /^[A-Za-z0-9_-]*$/

/**
 * Whether `signature` (base64url, as in a compact JWS) signs `signingInput` (`header.payload`)
 * under `key` with `alg`; undefined when the signature is not base64url at all.
 *
 * Synchronous, with node:crypto: WebCrypto (jose's path) runs every verification as a job on
 * libuv's thread pool, and the hop there and back cost more than the verification itself — on
 * the bench it halved `GET /user`'s throughput (docs/decisions/0011-auth-hot-paths.md). ES256
 * signatures in a JWS are r‖s (IEEE P1363), not DER.
 */
export const verifies = (
  alg: SigningKey.Algorithm,
  signingInput: string,
  signature: string,
  key: VerifyKey
): boolean | undefined => {
  if (!base64url.test(signature)) return undefined
  const data = Buffer.from(signingInput)
  const presented = Buffer.from(signature, "base64url")
  if (key instanceof Uint8Array) {
    if (alg !== "HS256") return false
    const expected = createHmac("sha256", key).update(data).digest()
    return presented.length === expected.length && timingSafeEqual(presented, expected)
  }
  try {
    switch (alg) {
      case "HS256":
        return false
      case "RS256":
        return verify("sha256", data, key, presented)
      case "ES256":
        return verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, presented)
      case "EdDSA":
        return verify(null, data, key, presented)
    }
  } catch {
    // A key of another type than `alg` wants, which the key ring rules out: not a match either.
    return false
  }
}
