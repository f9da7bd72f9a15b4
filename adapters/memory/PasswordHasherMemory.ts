import { createHash, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { PasswordHasher, type Verification } from "../../application/ports/PasswordHasher.js"

/**
 * A fast, deterministic stand-in for tests of the use cases: an unsalted SHA-256, so the same
 * password always gives the same hash and a test can write the expected value. Two schemes,
 * mirroring what the production hasher tells apart: `$memory$` is current, `$memory-legacy$`
 * stands for a hash to replace (an imported bcrypt hash, weaker argon2 parameters), so a test
 * can seed a user whose next sign-in must rehash.
 */
const current = "$memory$"
const legacy = "$memory-legacy$"

const digest = (password: Redacted.Redacted<string>): string =>
  createHash("sha256").update(Redacted.value(password), "utf8").digest("hex")

const same = (a: string, b: string): boolean => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The hash `hash` makes. */
export const hashOf = (password: Redacted.Redacted<string>): string => `${current}${digest(password)}`

/** A stored hash that verifies and asks to be replaced, as an imported one would. */
export const legacyHashOf = (password: Redacted.Redacted<string>): string => `${legacy}${digest(password)}`

const verify = (password: Redacted.Redacted<string>, stored: string): Verification => {
  if (stored.startsWith(current)) return { matches: same(stored, hashOf(password)), needsRehash: false }
  if (stored.startsWith(legacy)) {
    const matches = same(stored, legacyHashOf(password))
    return { matches, needsRehash: matches }
  }
  return { matches: false, needsRehash: false }
}

export const layer = Layer.succeed(PasswordHasher, {
  hash: (password) => Effect.sync(() => hashOf(password)),
  verify: (password, stored) => Effect.sync(() => verify(password, stored)),
  verifyDummy: () => Effect.void,
  canVerify: (stored) => Effect.succeed(stored.startsWith(current) || stored.startsWith(legacy))
})
