import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as IdTokenNonce from "../../../domain/auth/IdTokenNonce.js"

const digest = (text: string) => createHash("sha256").update(text).digest("hex")

describe("IdTokenNonce.check", () => {
  it.effect("both absent, or the token's nonce the SHA-256 hex of the passed one: accepted", () =>
    Effect.gen(function* () {
      expect(yield* IdTokenNonce.check("", undefined)).toEqual({ _tag: "Ok" })
      expect(yield* IdTokenNonce.check("raw nonce", digest("raw nonce"))).toEqual({ _tag: "Ok" })
    })
  )

  it.effect("one without the other, or another digest: Supabase Auth's errors and words", () =>
    Effect.gen(function* () {
      const either = {
        _tag: "Refused",
        error: "invalid request",
        message: "Passed nonce and nonce in id_token should either both exist or not."
      }
      expect(yield* IdTokenNonce.check("raw nonce", undefined)).toEqual(either)
      expect(yield* IdTokenNonce.check("", digest("raw nonce"))).toEqual(either)
      expect(yield* IdTokenNonce.check("raw nonce", "raw nonce")).toEqual({
        _tag: "Refused",
        error: "invalid nonce",
        message: "Nonces mismatch"
      })
    })
  )
})
