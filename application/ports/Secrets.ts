import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { SecretHash } from "../../domain/Ids.js"
import type { TokenKind } from "../../domain/TokenKind.js"

/** A secret sealed by `Secrets.seal`: opaque text, safe to store. */
export const SealedSecret = Schema.String.pipe(Schema.minLength(1), Schema.brand("SealedSecret"))
export type SealedSecret = typeof SealedSecret.Type

/**
 * Everything the core does with secrets: mints them, hashes them for storage and lookup, and
 * seals one under another. It is also the source of randomness: the core never calls
 * `Math.random` or `crypto` itself.
 */
export class Secrets extends Context.Tag("latchkey/Secrets")<
  Secrets,
  {
    /** A fresh secret of at least 256 random bits, prefixed with its kind (`TokenKind.prefix`). */
    readonly token: (kind: TokenKind) => Effect.Effect<Redacted.Redacted<string>>
    /** A random (version 4) UUID for a new record. */
    readonly uuid: Effect.Effect<string>
    /** A one-time code to type: `length` decimal digits, each uniformly random. */
    readonly code: (length: number) => Effect.Effect<Redacted.Redacted<string>>
    /**
     * `length` random bytes, for secrets the domain shapes itself: a TOTP factor's secret
     * (`Totp`), a set of recovery codes (`RecoveryCodes.fromRandomBytes`).
     */
    readonly bytes: (length: number) => Effect.Effect<Redacted.Redacted<Uint8Array>>
    /**
     * The hash of a high-entropy secret (token, code, client secret, state) for storage and
     * lookup. A fast hash is right here: with 256 random bits there is nothing to brute-force,
     * and the hash must be deterministic so that a presented token can be found by its hash.
     */
    readonly hash: (secret: Redacted.Redacted<string>) => Effect.Effect<SecretHash>
    /** Constant-time comparison of a presented secret with a stored hash. */
    readonly verify: (secret: Redacted.Redacted<string>, hash: SecretHash) => Effect.Effect<boolean>
    /**
     * Seals `secret` under a key derived from `under` (authenticated encryption). This is how a
     * refresh token's child is kept for the reuse interval without storing it in the clear
     * (docs/decisions/0008): the child is sealed under its parent token, which the database
     * never holds, so only whoever presents the parent can open it.
     */
    readonly seal: (
      under: Redacted.Redacted<string>,
      secret: Redacted.Redacted<string>
    ) => Effect.Effect<SealedSecret>
    /** The sealed secret, or none when `under` is not what it was sealed under or it was altered. */
    readonly unseal: (
      under: Redacted.Redacted<string>,
      sealed: SealedSecret
    ) => Effect.Effect<Option.Option<Redacted.Redacted<string>>>
  }
>() {}
