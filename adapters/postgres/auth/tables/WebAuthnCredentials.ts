import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { CredentialTaken } from "../../../../application/auth/ports/PasskeyStore.js"
import { Passkey } from "../../../../domain/auth/Passkey.js"

/**
 * The `webauthn_credentials` table (passkeys): its columns as `Passkey` reads them, its row codec
 * both ways, and what its unique violation means. The credential id and public key are `bytea`,
 * as Supabase Auth stores them, and base64url in the domain, as the ceremony library hands them
 * over.
 */

/**
 * The columns of a passkey, read from the table under `alias`. The driver reads `bigint` as text
 * (a sign counter is an unsigned 32-bit value, past `integer`), and `jsonb` is read as its text.
 */
export const columnsOf = (alias: string) =>
  `${alias}.id, ${alias}.user_id, ${alias}.credential_id, ${alias}.public_key, ${alias}.attestation_type,
  ${alias}.aaguid, ${alias}.sign_count::text AS sign_count, ${alias}.transports::text AS transports,
  ${alias}.backup_eligible, ${alias}.backed_up, ${alias}.friendly_name, ${alias}.created_at,
  ${alias}.updated_at, ${alias}.last_used_at`

/** `bytea` as the driver hands it over (a Buffer, a Uint8Array), base64url without padding. */
export const Base64UrlBytes = Schema.transformOrFail(Schema.Uint8ArrayFromSelf, Schema.String, {
  strict: true,
  decode: (bytes) => ParseResult.succeed(Encoding.encodeBase64Url(bytes)),
  encode: (text, _, ast) =>
    Either.match(Encoding.decodeBase64Url(text), {
      onLeft: () => ParseResult.fail(new ParseResult.Type(ast, text, "not base64url")),
      onRight: ParseResult.succeed
    })
})

const RowFields = Schema.Struct({
  ...Passkey.fields,
  credentialId: Base64UrlBytes,
  publicKey: Base64UrlBytes,
  signCount: Schema.compose(Schema.NumberFromString, Schema.NonNegativeInt),
  transports: Schema.parseJson(Schema.Array(Schema.String))
})

export const Row = Schema.transform(RowFields, Schema.typeSchema(Passkey), {
  strict: true,
  // Decoded field by field already: the class is not asked to validate them again.
  decode: (row) => new Passkey(row, true),
  encode: (passkey) => ({ ...passkey })
})

/** The row a passkey is written as, under the table's column names. */
export const row = Schema.encodeSync(Row)

/** A credential id as the `credential_id` column compares it. */
export const credentialIdBytes = (credentialId: string): Option.Option<Uint8Array> =>
  Either.getRight(Encoding.decodeBase64Url(credentialId))

/** What the unique violation of `constraint` says about `passkey`, when it is this table's. */
export const conflict = (
  passkey: Pick<Passkey, "credentialId">,
  constraint: string
): Option.Option<CredentialTaken> =>
  constraint.endsWith("webauthn_credentials_credential_id_key")
    ? Option.some(new CredentialTaken({ credentialId: passkey.credentialId }))
    : Option.none()
