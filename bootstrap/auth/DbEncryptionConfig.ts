import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as DatabaseEncryption from "../../adapters/crypto/auth/DatabaseEncryption.js"
import * as ConfigValues from "../ConfigValues.js"

/**
 * `SECURITY_DB_ENCRYPTION_*`, Supabase Auth's encryption of secrets at rest, read as it reads
 * them: with `_ENCRYPT` on, TOTP secrets are sealed under `_ENCRYPTION_KEY` (256 bits in
 * unpadded base64url) named `_ENCRYPTION_KEY_ID`; `_DECRYPTION_KEYS` (`id:key,id:key`) holds the
 * keys older secrets were sealed under, so that a key can be rotated or a Supabase project's
 * rows read. The sealing key opens too, whether or not it is listed there.
 */

const encryptName = "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT"
const keyIdName = "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID"
const keyName = "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY"
const decryptionKeysName = "AUTHSVC_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS"

/** The variables `keys` reads, for AuthVariables.read. */
export const variables: ReadonlyArray<string> = [encryptName, keyIdName, keyName, decryptionKeysName]

const keyExpected = "expected a 256-bit key in unpadded base64url (43 characters)"

/** A key as Supabase Auth decodes one: base64url without padding, 32 bytes. */
const keyBytes = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined
  const bytes = Buffer.from(text, "base64url")
  return bytes.length === 32 ? bytes : undefined
}

export const keys: Config.Config<DatabaseEncryption.Keys> = Config.all({
  encrypt: ConfigValues.bool(encryptName, false),
  keyId: Config.string(keyIdName).pipe(Config.withDefault("")),
  key: Config.option(Config.redacted(keyName)),
  // Never quoted in a message: they are keys.
  decryption: Config.redacted(decryptionKeysName).pipe(Config.withDefault(Redacted.make("")))
}).pipe(
  Config.mapOrFail((fields): Either.Either<DatabaseEncryption.Keys, ConfigError.ConfigError> => {
    const problems: Array<ConfigError.ConfigError> = []
    const opening = new Map<string, Uint8Array>()
    for (const entry of Redacted.value(fields.decryption).split(",")) {
      if (entry.trim() === "") continue
      const separator = entry.indexOf(":")
      const id = separator < 0 ? "" : entry.slice(0, separator).trim()
      const bytes = separator < 0 ? undefined : keyBytes(entry.slice(separator + 1).trim())
      if (id === "" || bytes === undefined) {
        problems.push(
          ConfigValues.invalid(
            decryptionKeysName,
            `expected id:key pairs separated by commas, each key 256 bits in unpadded base64url${id === "" ? "" : ` (not so: ${id})`}`
          )
        )
        continue
      }
      opening.set(id, bytes)
    }
    let sealing: DatabaseEncryption.Keys["sealing"] = Option.none()
    if (fields.encrypt) {
      const key = Option.flatMap(fields.key, (value) =>
        Option.fromNullable(keyBytes(Redacted.value(value).trim()))
      )
      if (fields.keyId.trim() === "")
        problems.push(ConfigValues.invalid(keyIdName, `is required with ${encryptName}`))
      if (Option.isNone(key))
        problems.push(
          ConfigValues.invalid(
            keyName,
            Option.isNone(fields.key) ? `is required with ${encryptName}` : keyExpected
          )
        )
      if (fields.keyId.trim() !== "" && Option.isSome(key)) {
        sealing = Option.some({ keyId: fields.keyId.trim(), key: key.value })
        opening.set(fields.keyId.trim(), key.value)
      }
    }
    const [first, ...rest] = problems
    return first === undefined
      ? Either.right({ sealing, opening })
      : Either.left(rest.reduce((left, right) => ConfigError.And(left, right), first))
  })
)
