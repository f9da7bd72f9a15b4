import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as DatabaseEncryption from "../../../../adapters/crypto/auth/DatabaseEncryption.js"

// Made by a Go program with Go's own AES-GCM and an RFC 5869 HKDF-SHA-256 (no salt, the row id as
// info), as Supabase Auth's crypto.NewEncryptedString makes one: the TOTP secret below, sealed
// for the factor `factorId` under the key `key-1` (32 bytes, base64url) with the nonce 0…11.
const key = Buffer.from("ZGV0ZXJtaW5pc3RpYy1rZXktZm9yLXRlc3RzLW9ubHk", "base64url")
const factorId = "1f0c3a52-8a6e-4c8e-9d3b-2f6a7b1c9e01"
const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
const sealedByGo =
  '{"key_id":"key-1","alg":"aes-gcm-hkdf","data":"2adW0cwFsc3Ma/fr7+HTcgkVPIS7WMSY62PJn16mrQaR3v8E4a89Ojr8Wf7Jx4ru","nonce":"AAECAwQFBgcICQoL"}'

const keys: DatabaseEncryption.Keys = {
  sealing: Option.some({ keyId: "key-1", key }),
  opening: new Map([["key-1", key]])
}

const opened = (with_: DatabaseEncryption.Keys, id: string, stored: string) =>
  Effect.runSync(Effect.either(DatabaseEncryption.open(with_, id, stored)))

describe("secrets at rest in Supabase Auth's sealed form", () => {
  it("opens a secret Supabase Auth sealed", () => {
    expect(opened(keys, factorId, sealedByGo)).toMatchObject({ _tag: "Right", right: secret })
  })

  it("seals under the sealing key, bound to the row: each seal anew, each opens", () => {
    const first = DatabaseEncryption.seal(keys, factorId, secret)
    const second = DatabaseEncryption.seal(keys, factorId, secret)
    expect(JSON.parse(first)).toMatchObject({ key_id: "key-1", alg: "aes-gcm-hkdf" })
    expect(first).not.toBe(second)
    expect(first).not.toContain(secret)
    for (const sealed of [first, second]) {
      expect(opened(keys, factorId, sealed)).toMatchObject({ _tag: "Right", right: secret })
    }
  })

  it("refuses what another row, another key by that name, or an altered value sealed", () => {
    const refused = { _tag: "Left", left: { _tag: "SecretUnreadable", keyId: "key-1" } }
    expect(opened(keys, "another-factor", sealedByGo)).toMatchObject(refused)
    const otherKey = new Map([["key-1", Buffer.alloc(32, 7)]])
    expect(opened({ sealing: Option.none(), opening: otherKey }, factorId, sealedByGo)).toMatchObject(refused)
    const altered = sealedByGo.replace('"data":"2adW', '"data":"3adW')
    expect(opened(keys, factorId, altered)).toMatchObject(refused)
    // Without the key it names, a sealed secret cannot be read at all.
    expect(opened(DatabaseEncryption.none, factorId, sealedByGo)).toMatchObject(refused)
  })

  it("keeps and reads secrets in the clear without a sealing key, as without encryption", () => {
    expect(DatabaseEncryption.seal(DatabaseEncryption.none, factorId, secret)).toBe(secret)
    expect(opened(keys, factorId, secret)).toMatchObject({ _tag: "Right", right: secret })
    // JSON that is not Supabase Auth's sealed form is a secret kept as it is.
    expect(opened(keys, factorId, '{"key_id":"key-1"}')).toMatchObject({
      _tag: "Right",
      right: '{"key_id":"key-1"}'
    })
  })

  it("reseals a secret in the clear or under an older key when sealing is on, and only then", () => {
    const newer = Buffer.alloc(32, 2)
    const rotated: DatabaseEncryption.Keys = {
      sealing: Option.some({ keyId: "key-2", key: newer }),
      opening: new Map([
        ["key-1", key],
        ["key-2", newer]
      ])
    }
    for (const stored of [secret, sealedByGo]) {
      const resealed = DatabaseEncryption.reseal(rotated, factorId, stored, secret)
      if (Option.isNone(resealed)) throw new Error(`resealed: ${stored}`)
      expect(JSON.parse(resealed.value)).toMatchObject({ key_id: "key-2", alg: "aes-gcm-hkdf" })
      expect(opened(rotated, factorId, resealed.value)).toMatchObject({ _tag: "Right", right: secret })
    }
    // Under the sealing key already: left as it is.
    const current = DatabaseEncryption.seal(rotated, factorId, secret)
    expect(DatabaseEncryption.reseal(rotated, factorId, current, secret)).toEqual(Option.none())
    // Sealing off: nothing is resealed, nor unsealed.
    const openingOnly = { sealing: Option.none(), opening: rotated.opening }
    for (const stored of [secret, sealedByGo, current]) {
      expect(DatabaseEncryption.reseal(openingOnly, factorId, stored, secret)).toEqual(Option.none())
    }
  })
})
