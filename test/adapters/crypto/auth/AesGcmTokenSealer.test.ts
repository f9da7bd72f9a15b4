import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AesGcmTokenSealer from "../../../../adapters/crypto/auth/AesGcmTokenSealer.js"
import { SealedSecret, TokenSealer } from "../../../../application/auth/ports/TokenSealer.js"

const parent = Redacted.make("lkr_parent-token-with-256-bits-of-randomness-aaaaaaaa")
const child = Redacted.make("lkr_child-token")

describe("AesGcmTokenSealer", () => {
  it.effect("opens what it sealed under the same token, and nothing else", () =>
    Effect.gen(function* () {
      const sealer = yield* TokenSealer
      const sealed = yield* sealer.seal(parent, child)
      expect(sealed).not.toContain("child")
      expect(Option.map(yield* sealer.unseal(parent, sealed), Redacted.value)).toEqual(
        Option.some("lkr_child-token")
      )
      // A fresh nonce each time: two seals of one secret differ.
      expect(yield* sealer.seal(parent, child)).not.toBe(sealed)
      expect(yield* sealer.unseal(Redacted.make("lkr_another"), sealed)).toEqual(Option.none())
      const body = sealed.slice(3)
      const flipped = `${body.slice(0, 20)}${body[20] === "A" ? "B" : "A"}${body.slice(21)}`
      expect(yield* sealer.unseal(parent, SealedSecret.make(`v1.${flipped}`))).toEqual(Option.none())
      expect(yield* sealer.unseal(parent, SealedSecret.make("v2.abc"))).toEqual(Option.none())
      expect(yield* sealer.unseal(parent, SealedSecret.make("v1.abc"))).toEqual(Option.none())
    }).pipe(Effect.provide(AesGcmTokenSealer.layer))
  )
})
