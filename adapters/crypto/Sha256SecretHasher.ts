import { createHash, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { SecretHasher } from "../../application/ports/SecretHasher.js"
import { SecretHash } from "../../domain/Ids.js"

const digest = (secret: Redacted.Redacted<string>): Buffer =>
  createHash("sha256").update(Redacted.value(secret), "utf8").digest()

export const hashOf = (secret: Redacted.Redacted<string>): SecretHash =>
  SecretHash.make(digest(secret).toString("hex"))

export const layer = Layer.succeed(SecretHasher, {
  hash: (secret) => Effect.sync(() => hashOf(secret)),
  verify: (secret, hash) =>
    Effect.sync(() => {
      const stored = Buffer.from(hash, "hex")
      const presented = digest(secret)
      return stored.length === presented.length && timingSafeEqual(stored, presented)
    })
})
