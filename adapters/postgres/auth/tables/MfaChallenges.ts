import * as Schema from "effect/Schema"
import { FactorChallenge } from "../../../../domain/auth/FactorChallenge.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"

/**
 * The `mfa_challenges` table: its columns as `FactorChallenge` reads them and its row codec both
 * ways. The WebAuthn ceremony lives in `web_authn_session_data`, as JSON text.
 */

/** The columns of `FactorChallenge`. `host(…)`: the address as it was given, without a `/32`. */
export const columns = `id, factor_id, host(ip_address) AS ip_address, otp_code_hash,
  web_authn_session_data::text AS web_authn, created_at, verified_at`

const RowFields = Schema.Struct({
  ...FactorChallenge.fields,
  webAuthn: Schema.OptionFromNullOr(Schema.parseJson(WebAuthnCeremony))
})

export const Row = Schema.transform(RowFields, Schema.typeSchema(FactorChallenge), {
  strict: true,
  // Decoded field by field already: the class is not asked to validate them again.
  decode: (row) => new FactorChallenge(row, true),
  encode: (challenge) => ({ ...challenge })
})

const encode = Schema.encodeSync(Row)

/** The row a challenge is written as, under the table's column names. */
export const row = (challenge: FactorChallenge) => {
  const { webAuthn, ...rest } = encode(challenge)
  return { ...rest, webAuthnSessionData: webAuthn }
}
