import { describe, expect, type Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { PasswordHasher } from "../../../application/ports/PasswordHasher.js"

/** What every PasswordHasher must do, whatever its format. */
export const passwordHasherContract = (it: Vitest.MethodsNonLive<PasswordHasher>) =>
  describe("PasswordHasher", () => {
    const password = Redacted.make("correct horse battery staple")

    it.effect("a fresh hash verifies its password and needs no rehash", () =>
      Effect.gen(function* () {
        const hasher = yield* PasswordHasher
        const stored = yield* hasher.hash(password)
        expect(stored).not.toContain(Redacted.value(password))
        expect(yield* hasher.verify(password, stored)).toEqual({ matches: true, needsRehash: false })
      })
    )

    it.effect("another password does not match, and never asks for a rehash", () =>
      Effect.gen(function* () {
        const hasher = yield* PasswordHasher
        const stored = yield* hasher.hash(password)
        for (const other of ["correct horse battery stapl", "Correct horse battery staple", ""]) {
          expect(yield* hasher.verify(Redacted.make(other), stored)).toEqual({
            matches: false,
            needsRehash: false
          })
        }
      })
    )

    it.effect("a stored hash it cannot read is a mismatch, not a failure", () =>
      Effect.gen(function* () {
        const hasher = yield* PasswordHasher
        for (const garbled of [
          "",
          "not a hash",
          "$argon2id$garbage",
          "$2b$10$short",
          "$fbscrypt$v=1,n=14$x"
        ]) {
          expect(yield* hasher.verify(password, garbled)).toEqual({ matches: false, needsRehash: false })
        }
      })
    )

    it.effect("verifies against the dummy hash without failing", () =>
      Effect.gen(function* () {
        const hasher = yield* PasswordHasher
        yield* hasher.verifyDummy(password)
        yield* hasher.verifyDummy(Redacted.make(""))
      })
    )
  })
