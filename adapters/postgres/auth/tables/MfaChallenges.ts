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

type Name = (table: string) => string

/** The `$`-parameters of `spendCtes`, as the statement embedding them numbers them. */
export interface SpendParameters {
  readonly challenge: string
  readonly factor: string
  readonly now: string
  /** A TOTP code's step (bigint), or NULL for a code without one. */
  readonly step: string
}

/**
 * A challenge spent once, as CTEs for a statement to embed (`open`, `stepped`, `spent`): the
 * challenge locked while it is open, so that of concurrent verifies the later ones find it spent;
 * a TOTP code's step recorded on the factor only past its last one (the factor's row then orders
 * verifies of different challenges with one code; without a step the row is only locked); the
 * challenge spent only then. `spent` returns the challenge's columns; nothing is written unless
 * all three match. `also` is a further condition (`AND …`) for the challenge to count as open.
 */
export const spendCtes = (name: Name, at: SpendParameters, also = "") =>
  `open AS (
     SELECT id FROM ${name("mfa_challenges")}
     WHERE id = ${at.challenge} AND factor_id = ${at.factor} AND verified_at IS NULL ${also} FOR UPDATE
   ),
   stepped AS (
     UPDATE ${name("mfa_factors")} SET last_totp_step = coalesce(${at.step}::bigint, last_totp_step)
     WHERE id = ${at.factor} AND EXISTS (SELECT 1 FROM open)
       AND (${at.step}::bigint IS NULL OR last_totp_step IS NULL OR last_totp_step < ${at.step}::bigint)
     RETURNING id
   ),
   spent AS (
     UPDATE ${name("mfa_challenges")} SET verified_at = ${at.now}
     WHERE id IN (SELECT id FROM open) AND EXISTS (SELECT 1 FROM stepped)
     RETURNING ${columns}
   )`
