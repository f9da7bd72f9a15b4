import { hash, verify } from "@node-rs/argon2"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { PasswordHasher } from "../../application/ports/PasswordHasher.js"

/** OWASP's argon2id baseline (19 MiB, 2 iterations, 1 lane); parameters travel inside each PHC string. */
// `2` is Algorithm.Argon2id; the package exports it as a const enum, which isolated modules cannot read.
const options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export const layer = Layer.succeed(PasswordHasher, {
  hash: (password) => Effect.promise(() => hash(Redacted.value(password), options)),
  // A malformed stored hash is a failed verification, not a crash of the request.
  verify: (password, phc) => Effect.promise(() => verify(phc, Redacted.value(password)).catch(() => false))
})
