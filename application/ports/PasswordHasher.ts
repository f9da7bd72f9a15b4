import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"

/** Slow, salted hashing (argon2id) for low-entropy secrets chosen by people. */
export class PasswordHasher extends Context.Tag("latchkey/PasswordHasher")<
  PasswordHasher,
  {
    /** A self-describing PHC string (`$argon2id$v=19$...`). */
    readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
    /** False for a wrong password, and for a `phc` that is not a hash it can read. */
    readonly verify: (password: Redacted.Redacted<string>, phc: string) => Effect.Effect<boolean>
  }
>() {}
