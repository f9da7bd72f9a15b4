import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as SigningKey from "../../../domain/auth/SigningKey.js"

/**
 * The stored signing keys, shared by every instance of the auth service: a key added or
 * rotated by one instance (or by an operator's command) is seen by all, without a restart.
 * Readers that sign and verify on every request keep what they read for a short, bounded time
 * (the `readerCache` of `SigningKey.Lifetimes`); the store itself answers from storage.
 */
export class SigningKeyStore extends Context.Tag("latchkey/auth/SigningKeyStore")<
  SigningKeyStore,
  {
    /** Every stored key, retired ones included, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<SigningKey.SigningKey>>
    /**
     * Writes a new key. False, and nothing written, when its kid is taken or when it is current
     * and another key already is: of instances that start together on an empty store and each
     * insert a first key, exactly one succeeds.
     */
    readonly insert: (key: SigningKey.SigningKey) => Effect.Effect<boolean>
    /**
     * Writes a decision's changes all or nothing, each only if the stored key still has the
     * status of its `before`. False, and nothing written, when one has moved meanwhile (another
     * operator's rotation): the caller reads again and decides again.
     */
    readonly update: (changes: ReadonlyArray<SigningKey.Change>) => Effect.Effect<boolean>
  }
>() {}
