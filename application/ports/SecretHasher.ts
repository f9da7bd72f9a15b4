import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { SecretHash } from "../../domain/Ids.js"

/**
 * Hashes high-entropy secrets (tokens, codes, client secrets, states) for storage and lookup.
 * A fast hash is right here: with 256 random bits there is nothing to brute-force, and the
 * hash must be deterministic so that a presented token can be found by its hash.
 */
export class SecretHasher extends Context.Tag("latchkey/SecretHasher")<
  SecretHasher,
  {
    readonly hash: (secret: Redacted.Redacted<string>) => Effect.Effect<SecretHash>
    /** Constant-time comparison of a presented secret with a stored hash. */
    readonly verify: (secret: Redacted.Redacted<string>, hash: SecretHash) => Effect.Effect<boolean>
  }
>() {}
