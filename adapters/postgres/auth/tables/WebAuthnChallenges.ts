import * as Schema from "effect/Schema"
import { PasskeyChallenge } from "../../../../domain/auth/Passkey.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"

/**
 * The `webauthn_challenges` table (passkey challenges): its columns as `PasskeyChallenge` reads
 * them and its row codec both ways. The ceremony, with the challenge as a digest, lives in
 * `session_data`, as JSON text; the purpose in `challenge_type`.
 */

export const columns = `id, user_id, challenge_type AS purpose, session_data::text AS ceremony, created_at,
  expires_at`

const RowFields = Schema.Struct({
  ...PasskeyChallenge.fields,
  ceremony: Schema.parseJson(WebAuthnCeremony)
})

export const Row = Schema.transform(RowFields, Schema.typeSchema(PasskeyChallenge), {
  strict: true,
  // Decoded field by field already: the class is not asked to validate them again.
  decode: (row) => new PasskeyChallenge(row, true),
  encode: (challenge) => ({ ...challenge })
})

const encode = Schema.encodeSync(Row)

/** The row a challenge is written as, under the table's column names. */
export const row = (challenge: PasskeyChallenge) => {
  const { purpose, ceremony, ...rest } = encode(challenge)
  return { ...rest, challengeType: purpose, sessionData: ceremony }
}
