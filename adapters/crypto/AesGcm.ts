import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/**
 * AES-256-GCM, the one authenticated cipher of the code base: each caller derives its key and
 * lays the parts out in its own stored format (sealed refresh tokens, OAuth 1.0a request tokens,
 * Supabase Auth's sealed secrets at rest).
 */

/** A 96-bit random nonce, the ciphertext and the 128-bit tag. */
export interface Encrypted {
  readonly nonce: Buffer
  readonly ciphertext: Buffer
  readonly tag: Buffer
}

export const nonceBytes = 12
export const tagBytes = 16

/** `plaintext` (UTF-8) under the 256-bit `key`, with a fresh random nonce. */
export const encrypt = (key: Uint8Array, plaintext: string): Encrypted => {
  const nonce = randomBytes(nonceBytes)
  const cipher = createCipheriv("aes-256-gcm", key, nonce)
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return { nonce, ciphertext, tag: cipher.getAuthTag() }
}

/**
 * The plaintext, or undefined when the tag does not verify: another key, or the parts altered
 * in any bit (or of the wrong length).
 */
export const decrypt = (key: Uint8Array, encrypted: Encrypted): Buffer | undefined => {
  if (encrypted.nonce.length !== nonceBytes || encrypted.tag.length !== tagBytes) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, encrypted.nonce)
    decipher.setAuthTag(encrypted.tag)
    return Buffer.concat([decipher.update(encrypted.ciphertext), decipher.final()])
  } catch {
    return undefined
  }
}
