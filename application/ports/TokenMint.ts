import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { TokenKind } from "../../domain/TokenKind.js"

/** The source of randomness: the core never calls `Math.random` or `crypto` itself. */
export class TokenMint extends Context.Tag("latchkey/TokenMint")<
  TokenMint,
  {
    /** A fresh secret of at least 256 random bits, prefixed with its kind (`TokenKind.prefix`). */
    readonly token: (kind: TokenKind) => Effect.Effect<Redacted.Redacted<string>>
    /** A random (version 4) UUID for a new record. */
    readonly uuid: Effect.Effect<string>
    /** A one-time code to type: `length` decimal digits, each uniformly random. */
    readonly code: (length: number) => Effect.Effect<Redacted.Redacted<string>>
  }
>() {}
