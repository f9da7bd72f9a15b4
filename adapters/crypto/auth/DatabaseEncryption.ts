import { hkdfSync } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { SecretsAtRest, SecretUnreadable } from "../../../application/auth/ports/SecretsAtRest.js"
import * as AesGcm from "../AesGcm.js"

/**
 * Supabase Auth's encryption of secrets at rest (`SECURITY_DB_ENCRYPTION_*`), so that a
 * Supabase project's sealed TOTP secrets open here and ours open there: a secret is stored as
 * the JSON `{"key_id","alg":"aes-gcm-hkdf","data","nonce"}` (data and nonce in padded base64),
 * AES-256-GCM under a key derived with HKDF-SHA-256 from the operator's 256-bit key (no salt, the
 * row's id as info), with a random 12-byte nonce; `data` is the ciphertext and its tag. A stored
 * value that is not such JSON is a secret kept in the clear, as without encryption.
 */

export interface Keys {
  /** The key new secrets are sealed under, when encryption is on. */
  readonly sealing: Option.Option<{ readonly keyId: string; readonly key: Uint8Array }>
  /** Every key a stored secret may name, the sealing one included. */
  readonly opening: ReadonlyMap<string, Uint8Array>
}

export const none: Keys = { sealing: Option.none(), opening: new Map() }

const algorithm = "aes-gcm-hkdf"

const keyFor = (key: Uint8Array, id: string): Buffer =>
  Buffer.from(hkdfSync("sha256", key, new Uint8Array(), id, 32))

interface Sealed {
  readonly keyId: string
  readonly data: Buffer
  readonly nonce: Buffer
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The sealed form, when `stored` is one (as Supabase Auth recognises it); else undefined. */
const sealedOf = (stored: string): Sealed | undefined => {
  if (!stored.startsWith("{")) return undefined
  let json: unknown
  try {
    json = JSON.parse(stored)
  } catch {
    return undefined
  }
  if (!isRecord(json)) return undefined
  const { key_id: keyId, alg, data, nonce } = json
  if (typeof keyId !== "string" || keyId === "" || alg !== algorithm) return undefined
  if (typeof data !== "string" || typeof nonce !== "string" || !base64.test(data) || !base64.test(nonce))
    return undefined
  const sealed = { keyId, data: Buffer.from(data, "base64"), nonce: Buffer.from(nonce, "base64") }
  return sealed.data.length > 0 && sealed.nonce.length === AesGcm.nonceBytes ? sealed : undefined
}

export const seal = (keys: Keys, id: string, plaintext: string): string =>
  Option.match(keys.sealing, {
    onNone: () => plaintext,
    onSome: ({ keyId, key }) => {
      const { nonce, ciphertext, tag } = AesGcm.encrypt(keyFor(key, id), plaintext)
      return JSON.stringify({
        key_id: keyId,
        alg: algorithm,
        data: Buffer.concat([ciphertext, tag]).toString("base64"),
        nonce: nonce.toString("base64")
      })
    }
  })

export const open = (keys: Keys, id: string, stored: string): Effect.Effect<string, SecretUnreadable> => {
  const sealed = sealedOf(stored)
  if (sealed === undefined) return Effect.succeed(stored)
  const key = keys.opening.get(sealed.keyId)
  const { data } = sealed
  // `data` is the ciphertext and its tag; a tag that does not verify means another row's
  // secret, another key under the same name, or an altered value.
  const plain =
    key === undefined || data.length <= AesGcm.tagBytes
      ? undefined
      : AesGcm.decrypt(keyFor(key, id), {
          nonce: sealed.nonce,
          ciphertext: data.subarray(0, data.length - AesGcm.tagBytes),
          tag: data.subarray(data.length - AesGcm.tagBytes)
        })
  return plain === undefined
    ? Effect.fail(new SecretUnreadable({ keyId: sealed.keyId }))
    : Effect.succeed(plain.toString("utf8"))
}

export const reseal = (keys: Keys, id: string, stored: string, plaintext: string): Option.Option<string> =>
  Option.flatMap(keys.sealing, ({ keyId }) =>
    sealedOf(stored)?.keyId === keyId ? Option.none() : Option.some(seal(keys, id, plaintext))
  )

export const layer = (keys: Keys) =>
  Layer.succeed(SecretsAtRest, {
    seal: (id, plaintext) => Effect.sync(() => seal(keys, id, plaintext)),
    open: (id, stored) => open(keys, id, stored),
    reseal: (id, stored, plaintext) => Effect.sync(() => reseal(keys, id, stored, plaintext))
  })
