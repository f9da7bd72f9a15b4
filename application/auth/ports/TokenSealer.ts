import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** A secret sealed by `TokenSealer.seal`: opaque text, safe to store. */
export const SealedSecret = Schema.String.pipe(Schema.minLength(1), Schema.brand("SealedSecret"))
export type SealedSecret = typeof SealedSecret.Type

/**
 * Authenticated encryption of one secret under a key derived from another, which is how a
 * refresh token's child is kept for the reuse interval without storing it in the clear
 * (docs/decisions/0008): the child is sealed under its parent token, which the database never
 * holds, so only whoever presents the parent can open it.
 */
export class TokenSealer extends Context.Tag("latchkey/auth/TokenSealer")<
  TokenSealer,
  {
    /** Seals `secret` under a key derived from `under`. */
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
