import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { SealedSecret, TokenSealer } from "../../../application/auth/ports/TokenSealer.js"

/** Names what the derived key is for, so that it can never serve another purpose. */
const info = Buffer.from("latchkey auth sealed refresh token v1", "utf8")
const version = "v1."
const nonceBytes = 12
const tagBytes = 16

// The key material is a 256-bit random token, so HKDF needs no salt to be uniform.
const keyUnder = (under: Redacted.Redacted<string>) =>
  Buffer.from(hkdfSync("sha256", Buffer.from(Redacted.value(under), "utf8"), Buffer.alloc(0), info, 32))

/**
 * HKDF-SHA-256 of the sealing token gives an AES-256-GCM key; each seal takes a fresh random
 * nonce, and the result is `v1.` + base64url(nonce ‖ ciphertext ‖ tag). Opening with any other
 * token, or a sealed value altered in any bit, fails the tag check: none.
 */
export const layer = Layer.succeed(TokenSealer, {
  seal: (under, secret) =>
    Effect.sync(() => {
      const nonce = randomBytes(nonceBytes)
      const cipher = createCipheriv("aes-256-gcm", keyUnder(under), nonce)
      const sealed = Buffer.concat([cipher.update(Redacted.value(secret), "utf8"), cipher.final()])
      return SealedSecret.make(
        `${version}${Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url")}`
      )
    }),
  unseal: (under, sealed) =>
    Effect.sync(() => {
      if (!sealed.startsWith(version)) return Option.none()
      const bytes = Buffer.from(sealed.slice(version.length), "base64url")
      if (bytes.length < nonceBytes + tagBytes) return Option.none()
      const decipher = createDecipheriv("aes-256-gcm", keyUnder(under), bytes.subarray(0, nonceBytes))
      decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes))
      try {
        const opened = Buffer.concat([
          decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)),
          decipher.final()
        ])
        return Option.some(Redacted.make(opened.toString("utf8")))
      } catch {
        // The tag did not verify: another token, or altered data.
        return Option.none()
      }
    })
})
