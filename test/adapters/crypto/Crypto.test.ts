import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as RandomTokenMint from "../../../adapters/crypto/RandomTokenMint.js"
import * as Sha256SecretHasher from "../../../adapters/crypto/Sha256SecretHasher.js"
import { SecretHasher } from "../../../application/ports/SecretHasher.js"
import { TokenMint } from "../../../application/ports/TokenMint.js"
import * as TokenKind from "../../../domain/TokenKind.js"

describe("RandomTokenMint", () => {
  it.effect("mints prefixed 256-bit tokens that never repeat, and v4 UUIDs", () =>
    Effect.gen(function* () {
      const mint = yield* TokenMint
      const tokens = yield* Effect.forEach(Array.from({ length: 1000 }), () => mint.token("refresh"))
      const values = tokens.map(Redacted.value)
      expect(new Set(values).size).toBe(1000)
      for (const value of values.slice(0, 20)) {
        expect(TokenKind.kindOf(value)).toBe("refresh")
        expect(value).toMatch(/^lkr_[A-Za-z0-9_-]{43}$/)
      }
      expect(yield* mint.uuid).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
      )
    }).pipe(Effect.provide(RandomTokenMint.layer))
  )
  it.effect("mints one-time codes of the asked length, digits only", () =>
    Effect.gen(function* () {
      const mint = yield* TokenMint
      const codes = yield* Effect.forEach(Array.from({ length: 200 }), () => mint.code(6))
      for (const code of codes) expect(Redacted.value(code)).toMatch(/^[0-9]{6}$/)
      expect(Redacted.value(yield* mint.code(10))).toMatch(/^[0-9]{10}$/)
    }).pipe(Effect.provide(RandomTokenMint.layer))
  )
  it.effect("a redacted token does not print its value", () =>
    Effect.gen(function* () {
      const token = yield* Effect.flatMap(TokenMint, (m) => m.token("access"))
      expect(String(token)).not.toContain(Redacted.value(token))
      expect(JSON.stringify({ token })).not.toContain(Redacted.value(token))
    }).pipe(Effect.provide(RandomTokenMint.layer))
  )
})

describe("Sha256SecretHasher", () => {
  it.effect("hashes to hex SHA-256 and verifies only the same secret", () =>
    Effect.gen(function* () {
      const hasher = yield* SecretHasher
      const hash = yield* hasher.hash(Redacted.make("abc"))
      expect(hash).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
      expect(yield* hasher.verify(Redacted.make("abc"), hash)).toBe(true)
      expect(yield* hasher.verify(Redacted.make("abd"), hash)).toBe(false)
      expect(yield* hasher.verify(Redacted.make(""), hash)).toBe(false)
    }).pipe(Effect.provide(Sha256SecretHasher.layer))
  )
})
