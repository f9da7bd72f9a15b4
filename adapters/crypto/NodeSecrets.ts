import { createHash, hkdfSync, randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { SealedSecret, Secrets } from "../../application/ports/Secrets.js"
import { SecretHash } from "../../domain/Ids.js"
import * as TokenKind from "../../domain/TokenKind.js"
import * as AesGcm from "./AesGcm.js"

// Minting.

/** 32 bytes = 256 bits from the operating system's CSPRNG, base64url without padding (43 chars). */
const secretBytes = 32

const token = (kind: TokenKind.TokenKind): Redacted.Redacted<string> =>
  Redacted.make(`${TokenKind.prefix[kind]}${randomBytes(secretBytes).toString("base64url")}`)

const code = (length: number): Redacted.Redacted<string> =>
  Redacted.make(Array.from({ length }, () => String(randomInt(10))).join(""))

// Hashing: SHA-256, hex. Fast on purpose (see `Secrets.hash`): these secrets carry 256 random
// bits, so there is nothing to brute-force, and a presented token is found by its hash.

const digest = (secret: Redacted.Redacted<string>): Buffer =>
  createHash("sha256").update(Redacted.value(secret), "utf8").digest()

const hash = (secret: Redacted.Redacted<string>): SecretHash =>
  SecretHash.make(digest(secret).toString("hex"))

const verify = (secret: Redacted.Redacted<string>, stored: SecretHash): boolean => {
  const expected = Buffer.from(stored, "hex")
  const presented = digest(secret)
  return expected.length === presented.length && timingSafeEqual(expected, presented)
}

// Sealing: HKDF-SHA-256 of the sealing token gives an AES-256-GCM key; each seal takes a fresh
// random nonce, and the result is `v1.` + base64url(nonce ‖ ciphertext ‖ tag). Opening with any
// other token, or a sealed value altered in any bit, fails the tag check: none. Stored rows hold
// this format, so it changes only with a new version prefix.

/** Names what the derived key is for, so that it can never serve another purpose. */
const info = Buffer.from("latchkey auth sealed refresh token v1", "utf8")
const version = "v1."

// The key material is a 256-bit random token, so HKDF needs no salt to be uniform.
const keyUnder = (under: Redacted.Redacted<string>) =>
  Buffer.from(hkdfSync("sha256", Buffer.from(Redacted.value(under), "utf8"), Buffer.alloc(0), info, 32))

const seal = (under: Redacted.Redacted<string>, secret: Redacted.Redacted<string>): SealedSecret => {
  const { nonce, ciphertext, tag } = AesGcm.encrypt(keyUnder(under), Redacted.value(secret))
  return SealedSecret.make(`${version}${Buffer.concat([nonce, ciphertext, tag]).toString("base64url")}`)
}

const unseal = (
  under: Redacted.Redacted<string>,
  sealed: SealedSecret
): Option.Option<Redacted.Redacted<string>> => {
  if (!sealed.startsWith(version)) return Option.none()
  const bytes = Buffer.from(sealed.slice(version.length), "base64url")
  if (bytes.length < AesGcm.nonceBytes + AesGcm.tagBytes) return Option.none()
  // None when the tag does not verify: another token, or altered data.
  return Option.map(
    Option.fromNullable(
      AesGcm.decrypt(keyUnder(under), {
        nonce: bytes.subarray(0, AesGcm.nonceBytes),
        ciphertext: bytes.subarray(AesGcm.nonceBytes, bytes.length - AesGcm.tagBytes),
        tag: bytes.subarray(bytes.length - AesGcm.tagBytes)
      })
    ),
    (opened) => Redacted.make(opened.toString("utf8"))
  )
}

/** `Secrets` on node:crypto. */
export const layer = Layer.succeed(Secrets, {
  token: (kind) => Effect.sync(() => token(kind)),
  uuid: Effect.sync(() => randomUUID()),
  code: (length) => Effect.sync(() => code(length)),
  bytes: (length) => Effect.sync(() => Redacted.make(new Uint8Array(randomBytes(length)))),
  hash: (secret) => Effect.sync(() => hash(secret)),
  verify: (secret, stored) => Effect.sync(() => verify(secret, stored)),
  seal: (under, secret) => Effect.sync(() => seal(under, secret)),
  unseal: (under, sealed) => Effect.sync(() => unseal(under, sealed))
})
