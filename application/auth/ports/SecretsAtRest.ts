import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * A stored secret that cannot be opened: sealed under a key the service was not given, or
 * altered. The operator's to mend (the key belongs in `SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS`).
 */
export class SecretUnreadable extends Schema.TaggedError<SecretUnreadable>()("SecretUnreadable", {
  /** The key the secret names, when it names one. */
  keyId: Schema.optional(Schema.String)
}) {}

/**
 * Secrets the service must read back in the clear (a TOTP factor's), as they are kept in the
 * database: sealed under the operator's key when `SECURITY_DB_ENCRYPTION_ENCRYPT` is on, in
 * Supabase Auth's form, else as they are. Each is bound to the id of the row that holds it, so
 * a sealed secret moved to another row does not open.
 */
export class SecretsAtRest extends Context.Tag("latchkey/auth/SecretsAtRest")<
  SecretsAtRest,
  {
    /** The stored form of `plaintext`, the secret of the row `id`. */
    readonly seal: (id: string, plaintext: string) => Effect.Effect<string>
    /** The secret of the row `id` from its stored form, sealed or not. */
    readonly open: (id: string, stored: string) => Effect.Effect<string, SecretUnreadable>
    /**
     * The stored form to write in place of `stored` (which opened to `plaintext`) when sealing
     * is on and it is not sealed under the sealing key: kept in the clear, or sealed under an
     * older key. None when it is as it should be, or when sealing is off (a sealed secret stays
     * sealed: the service can still open it). So a key rotation reaches a secret when it is next
     * used, as in Supabase Auth.
     */
    readonly reseal: (id: string, stored: string, plaintext: string) => Effect.Effect<Option.Option<string>>
  }
>() {}
