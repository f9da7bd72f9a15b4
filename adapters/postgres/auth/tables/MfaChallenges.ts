import * as Schema from "effect/Schema"
import { FactorChallenge } from "../../../../domain/auth/FactorChallenge.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"

/**
 * The `mfa_challenges` table: its columns as `FactorChallenge` reads them and its row codec both
 * ways. The WebAuthn ceremony lives in `web_authn_session_data`, as JSON text.
 */

/** The columns of `FactorChallenge`, of the table under `alias` (none: unqualified). */
const columnsOf = (alias: string) => {
  const p = alias === "" ? "" : `${alias}.`
  return `${p}id, ${p}factor_id, host(${p}ip_address) AS ip_address, ${p}otp_code_hash,
    ${p}web_authn_session_data::text AS web_authn, ${p}created_at, ${p}verified_at`
}

/** The columns of `FactorChallenge`. `host(…)`: the address as it was given, without a `/32`. */
export const columns = columnsOf("")

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

/**
 * One spend as `spendCtes`'s `input`: $1 challenge, $2 factor, $3 now, $4 the TOTP step or NULL.
 */
export const spendInputOfOne = `SELECT 1::bigint AS position, $1::uuid AS challenge_id, $2::uuid AS factor_id,
  $3::timestamptz AS now, $4::bigint AS step`

/**
 * Challenges spent once each, as CTEs for a statement to embed after its `input` relation (one
 * row per spend: `position`, `challenge_id`, `factor_id`, `now`, and `step`, a TOTP code's step
 * or NULL; no factor twice). `open`: the challenges still open, locked in id order, so that of
 * concurrent verifies the later ones find them spent. `stepped`: their factors locked in id order
 * and a TOTP code's step recorded only past the factor's last one (the factor's row then orders
 * verifies of different challenges with one code; without a step the row is only locked).
 * `spent`: the challenges spent only then, returning each spend's `position` and the challenge's
 * columns. `also` is a further condition (`AND …`) on the input row `i` for its challenge to
 * count as open.
 */
export const spendCtes = (name: Name, also = "") =>
  `open AS (
     SELECT c.id, i.position FROM ${name("mfa_challenges")} c JOIN input i ON c.id = i.challenge_id
     WHERE c.factor_id = i.factor_id AND c.verified_at IS NULL ${also}
     ORDER BY c.id FOR UPDATE OF c
   ),
   factors AS (
     SELECT f.id FROM ${name("mfa_factors")} f
     WHERE f.id IN (SELECT i.factor_id FROM open o JOIN input i ON i.position = o.position)
     ORDER BY f.id FOR UPDATE
   ),
   stepped AS (
     UPDATE ${name("mfa_factors")} f SET last_totp_step = coalesce(i.step, f.last_totp_step)
     FROM open o JOIN input i ON i.position = o.position
     WHERE f.id = i.factor_id AND f.id IN (SELECT id FROM factors)
       AND (i.step IS NULL OR f.last_totp_step IS NULL OR f.last_totp_step < i.step)
     RETURNING i.position
   ),
   spent AS (
     UPDATE ${name("mfa_challenges")} c SET verified_at = i.now
     FROM input i JOIN stepped s ON s.position = i.position
     WHERE c.id = i.challenge_id
     RETURNING i.position, ${columnsOf("c")}
   )`
