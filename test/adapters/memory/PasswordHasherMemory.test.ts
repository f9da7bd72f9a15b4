import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as PasswordHasherMemory from "../../../adapters/memory/PasswordHasherMemory.js"
import { PasswordHasher } from "../../../application/ports/PasswordHasher.js"
import { passwordHasherContract } from "../contract/PasswordHasherContract.js"

layer(PasswordHasherMemory.layer)("PasswordHasherMemory", passwordHasherContract)

describe("PasswordHasherMemory", () => {
  it.effect("hashes deterministically, and a legacy hash verifies and asks for a rehash", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const password = Redacted.make("hunter2")
      expect(yield* hasher.hash(password)).toBe(PasswordHasherMemory.hashOf(password))
      const legacy = PasswordHasherMemory.legacyHashOf(password)
      expect(yield* hasher.verify(password, legacy)).toEqual({ matches: true, needsRehash: true })
      expect(yield* hasher.verify(Redacted.make("hunter3"), legacy)).toEqual({
        matches: false,
        needsRehash: false
      })
    }).pipe(Effect.provide(PasswordHasherMemory.layer))
  )
})
