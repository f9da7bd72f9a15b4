import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as NodeSecrets from "../../../adapters/crypto/NodeSecrets.js"
import { SealedSecret, Secrets } from "../../../application/ports/Secrets.js"
import * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import * as Totp from "../../../domain/auth/Totp.js"
import * as TokenKind from "../../../domain/TokenKind.js"

describe("NodeSecrets", () => {
  describe("minting", () => {
    it.effect("mints prefixed 256-bit tokens that never repeat, and v4 UUIDs", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const tokens = yield* Effect.forEach(Array.from({ length: 1000 }), () => secrets.token("refresh"))
        const values = tokens.map(Redacted.value)
        expect(new Set(values).size).toBe(1000)
        for (const value of values.slice(0, 20)) {
          expect(TokenKind.kindOf(value)).toBe("refresh")
          expect(value).toMatch(/^lkr_[A-Za-z0-9_-]{43}$/)
        }
        expect(yield* secrets.uuid).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        )
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
    it.effect("mints one-time codes of the asked length, digits only", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const codes = yield* Effect.forEach(Array.from({ length: 200 }), () => secrets.code(6))
        for (const code of codes) expect(Redacted.value(code)).toMatch(/^[0-9]{6}$/)
        expect(Redacted.value(yield* secrets.code(10))).toMatch(/^[0-9]{10}$/)
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
    it.effect("gives random bytes of the asked length, enough for a whole set of recovery codes", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const first = Redacted.value(yield* secrets.bytes(Totp.parameters.secretBytes))
        const second = Redacted.value(yield* secrets.bytes(Totp.parameters.secretBytes))
        expect(first).toBeInstanceOf(Uint8Array)
        expect(first).toHaveLength(Totp.parameters.secretBytes)
        expect(Buffer.from(first).equals(Buffer.from(second))).toBe(false)
        expect(yield* Effect.map(secrets.bytes(0), Redacted.value)).toHaveLength(0)
        const drawn = Redacted.value(yield* secrets.bytes(RecoveryCodes.bytesNeeded()))
        const codes = RecoveryCodes.fromRandomBytes(drawn)
        expect(codes).toHaveLength(RecoveryCodes.setSize)
        for (const code of codes) expect(RecoveryCodes.isWellFormed(code)).toBe(true)
        expect(String(yield* secrets.bytes(20))).toBe("<redacted>")
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
    it.effect("a redacted token does not print its value", () =>
      Effect.gen(function* () {
        const token = yield* Effect.flatMap(Secrets, (secrets) => secrets.token("access"))
        expect(String(token)).not.toContain(Redacted.value(token))
        expect(JSON.stringify({ token })).not.toContain(Redacted.value(token))
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
  })

  describe("hashing", () => {
    it.effect("hashes to hex SHA-256 and verifies only the same secret", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const hash = yield* secrets.hash(Redacted.make("abc"))
        expect(hash).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        expect(yield* secrets.verify(Redacted.make("abc"), hash)).toBe(true)
        expect(yield* secrets.verify(Redacted.make("abd"), hash)).toBe(false)
        expect(yield* secrets.verify(Redacted.make(""), hash)).toBe(false)
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
  })

  describe("sealing", () => {
    const parent = Redacted.make("lkr_parent-token-with-256-bits-of-randomness-aaaaaaaa")
    const child = Redacted.make("lkr_child-token")

    it.effect("opens what it sealed under the same token, and nothing else", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const sealed = yield* secrets.seal(parent, child)
        expect(sealed).not.toContain("child")
        expect(Option.map(yield* secrets.unseal(parent, sealed), Redacted.value)).toEqual(
          Option.some("lkr_child-token")
        )
        // A fresh nonce each time: two seals of one secret differ.
        expect(yield* secrets.seal(parent, child)).not.toBe(sealed)
        expect(yield* secrets.unseal(Redacted.make("lkr_another"), sealed)).toEqual(Option.none())
        const body = sealed.slice(3)
        const flipped = `${body.slice(0, 20)}${body[20] === "A" ? "B" : "A"}${body.slice(21)}`
        expect(yield* secrets.unseal(parent, SealedSecret.make(`v1.${flipped}`))).toEqual(Option.none())
        expect(yield* secrets.unseal(parent, SealedSecret.make("v2.abc"))).toEqual(Option.none())
        expect(yield* secrets.unseal(parent, SealedSecret.make("v1.abc"))).toEqual(Option.none())
      }).pipe(Effect.provide(NodeSecrets.layer))
    )

    // Stored rows (sessions' sealed children, flow states' provider tokens) outlive a deploy:
    // a v1 value sealed by an earlier build must keep opening.
    it.effect("opens a v1 value sealed by an earlier build", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const stored = SealedSecret.make("v1.l_DKrRVokKiexQl7IGiesKKFOQjDFytng5AeWaDPPvHBcD_RXodfYq8NHg")
        expect(Option.map(yield* secrets.unseal(parent, stored), Redacted.value)).toEqual(
          Option.some("lkr_child-token")
        )
      }).pipe(Effect.provide(NodeSecrets.layer))
    )
  })
})
