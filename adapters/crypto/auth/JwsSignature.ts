import { createHmac, KeyObject, sign, timingSafeEqual, verify, type webcrypto } from "node:crypto"
import type * as SigningKey from "../../../domain/auth/SigningKey.js"

/**
 * A key in node:crypto's form: a public key object to check signatures with, a private one to
 * sign with, or the HS256 secret's bytes.
 */
export type NodeKey = KeyObject | Uint8Array

/** node's own key object for a key jose imported (a WebCrypto key), made once per key. */
export const nodeKeyOf = (imported: webcrypto.CryptoKey | Uint8Array): NodeKey =>
  imported instanceof Uint8Array ? imported : KeyObject.from(imported)

const base64url = /^[A-Za-z0-9_-]*$/

/**
 * Whether `signature` (base64url, as in a compact JWS) signs `signingInput` (`header.payload`)
 * under `key` with `alg`; undefined when the signature is not base64url at all.
 *
 * Synchronous, with node:crypto: WebCrypto (jose's path) runs every verification as a job on
 * libuv's thread pool, and the hop there and back cost more than the verification itself — on
 * the bench it halved `GET /user`'s throughput (docs/decisions/0011-auth-hot-paths.md). ES256
 * and ES512 signatures in a JWS are r‖s (IEEE P1363), not DER.
 */
export const verifies = (
  alg: SigningKey.Algorithm,
  signingInput: string,
  signature: string,
  key: NodeKey
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
      case "RS512":
        return verify("sha512", data, key, presented)
      case "ES512":
        return verify("sha512", data, { key, dsaEncoding: "ieee-p1363" }, presented)
    }
  } catch {
    // A key of another type than `alg` wants, which the key ring rules out: not a match either.
    return false
  }
}

/**
 * The base64url signature of `signingInput` (`header.payload`) under the private `key` (or the
 * HS256 secret) with `alg`. An asymmetric signature runs on libuv's thread pool through
 * node:crypto's callback form, which leaves the event loop less work than WebCrypto's jobs
 * (jose's path): an RS256 signature took 0.04 ms of the main thread against 0.10, and 0.92 ms of
 * CPU in all against 1.10 (`npm run bench:micro`). An HMAC is cheaper than the hop, so it is
 * computed here and now.
 */
export const signature = (alg: SigningKey.Algorithm, signingInput: string, key: NodeKey): Promise<string> => {
  if (key instanceof Uint8Array) {
    return alg === "HS256"
      ? Promise.resolve(createHmac("sha256", key).update(signingInput).digest("base64url"))
      : Promise.reject(new Error(`an ${alg} signature needs a private key, not a secret`))
  }
  const data = Buffer.from(signingInput)
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, signed: Buffer) =>
      error === null ? resolve(signed.toString("base64url")) : reject(error)
    switch (alg) {
      case "HS256":
        return reject(new Error("an HS256 signature needs the secret, not a key object"))
      case "RS256":
        return sign("sha256", data, key, done)
      case "ES256":
        return sign("sha256", data, { key, dsaEncoding: "ieee-p1363" }, done)
      case "EdDSA":
        return sign(null, data, key, done)
      case "RS512":
        return sign("sha512", data, key, done)
      case "ES512":
        return sign("sha512", data, { key, dsaEncoding: "ieee-p1363" }, done)
    }
  })
}
