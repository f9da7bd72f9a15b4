import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"

/** What checking a password against a stored hash found. */
export interface Verification {
  readonly matches: boolean
  /**
   * The password matched, but the stored hash is not what `hash` makes today (another
   * algorithm, such as a bcrypt hash imported from Supabase, or weaker parameters): the caller
   * should store `hash(password)` in its place now that it knows the password. Never true when
   * `matches` is false.
   */
  readonly needsRehash: boolean
}

/**
 * Slow, salted hashing for low-entropy secrets chosen by people. Callers never look inside a
 * stored hash: its format is the adapter's business, and `verify` says when to replace it.
 */
export class PasswordHasher extends Context.Tag("latchkey/PasswordHasher")<
  PasswordHasher,
  {
    /** A self-describing string for storage (a PHC string, `$argon2id$v=19$...`, in production). */
    readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
    /**
     * Checks a password against a stored hash. A stored hash in a format the adapter cannot
     * read is a mismatch, never a failure.
     */
    readonly verify: (password: Redacted.Redacted<string>, stored: string) => Effect.Effect<Verification>
    /**
     * Does the work of a `verify` against a current hash, and matches nothing: what sign-in runs
     * when the user does not exist or has no password, so that the answer takes as long as for
     * a user who does, and its timing does not reveal which accounts exist.
     */
    readonly verifyDummy: (password: Redacted.Redacted<string>) => Effect.Effect<void>
    /**
     * Whether a hash brought from elsewhere (the admin API's `password_hash`) is one `verify`
     * can read, so that an import with an unusable hash is refused instead of locking the user out.
     */
    readonly canVerify: (stored: string) => Effect.Effect<boolean>
  }
>() {}
