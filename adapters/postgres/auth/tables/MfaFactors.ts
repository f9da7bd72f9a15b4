import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  FactorNameTaken,
  FactorPhoneTaken,
  RecoveryCodesExist,
  type StoredFactor
} from "../../../../application/auth/ports/FactorStore.js"
import { Factor } from "../../../../domain/auth/Factor.js"
import { WebAuthnCredential } from "../../../../domain/auth/WebAuthnCredential.js"

/**
 * The `mfa_factors` table: its columns as `StoredFactor` reads them, its row codec both ways,
 * and what its unique violations mean.
 */

/**
 * The columns of a stored factor, read from the table under `alias`. A missing name reads as
 * `""` (rows imported from Supabase Auth may have NULL); the TOTP step as an integer, which
 * holds steps until the year 4000 and reads as a number on every driver.
 */
export const columnsOf = (alias: string) =>
  `${alias}.id, ${alias}.user_id, coalesce(${alias}.friendly_name, '') AS friendly_name,
  ${alias}.factor_type, ${alias}.status, ${alias}.phone, ${alias}.last_challenged_at, ${alias}.created_at,
  ${alias}.updated_at, ${alias}.secret, ${alias}.last_totp_step::integer AS last_totp_step,
  ${alias}.web_authn_credential::text AS web_authn_credential, ${alias}.web_authn_aaguid,
  ${alias}.failed_attempts, ${alias}.locked_until`

export const Row = Schema.Struct({
  ...Factor.fields,
  secret: Schema.OptionFromNullOr(Schema.String),
  lastTotpStep: Schema.OptionFromNullOr(Schema.Int),
  webAuthnCredential: Schema.OptionFromNullOr(Schema.parseJson(WebAuthnCredential)),
  webAuthnAaguid: Schema.OptionFromNullOr(Schema.String),
  failedAttempts: Schema.NonNegativeInt,
  lockedUntil: Schema.OptionFromNullOr(Schema.DateFromSelf)
})

export const stored = (row: typeof Row.Type): StoredFactor => {
  const { secret, lastTotpStep, webAuthnCredential, webAuthnAaguid, failedAttempts, lockedUntil, ...factor } =
    row
  return {
    // Decoded field by field already: the class is not asked to validate them again.
    factor: new Factor(factor, true),
    secret,
    lastTotpStep,
    webAuthn: webAuthnCredential,
    webAuthnAaguid,
    attempts: { failedAttempts, lockedUntil }
  }
}

/**
 * The factors of the user whose id is `userId` (an expression), oldest first, as one JSON array
 * (`FactorsJson`) in text under `Factor`'s field names — null when the user has none, so that
 * reading a user without factors (nearly all of them) costs one index probe and no JSON.
 */
export const jsonArrayOf = (name: (table: string) => string, userId: string) =>
  `${jsonOf(name, userId)}::text`

/** `jsonArrayOf` as a `json` value, to nest in a JSON object built around it (`Users.accountJsonOf`). */
export const jsonOf = (name: (table: string) => string, userId: string) =>
  `(SELECT json_agg(json_build_object(
       'id', f.id, 'userId', f.user_id, 'friendlyName', coalesce(f.friendly_name, ''),
       'factorType', f.factor_type, 'status', f.status, 'phone', f.phone,
       'lastChallengedAt', f.last_challenged_at, 'createdAt', f.created_at, 'updatedAt', f.updated_at)
     ORDER BY f.created_at, f.id)
    FROM ${name("mfa_factors")} f WHERE f.user_id = ${userId})`

/** A user's factors as `jsonOf` gives them inside a JSON document; null (none) reads as no factors. */
export const FactorsArray = Schema.NullOr(Schema.Array(Schema.Struct(Factor.fields)))

/** A user's factors as `jsonArrayOf` gives them; null (none) reads as no factors. */
export const FactorsJson = Schema.NullOr(Schema.parseJson(Schema.Array(Schema.Struct(Factor.fields))))

/** The factors of `FactorsJson` (decoded field by field already, not validated again). */
export const toFactors = (json: typeof FactorsArray.Type): ReadonlyArray<Factor> =>
  json === null ? [] : json.map((fields) => new Factor(fields, true))

const encodeFactor = Schema.encodeSync(Factor)

/** The row of a new factor: never verified by a ceremony yet, no step used, no failures. */
export const row = (factor: Factor, secret: Option.Option<string>) => ({
  ...encodeFactor(factor),
  secret: Option.getOrNull(secret)
})

/** The JSON text of a WebAuthn credential, for `web_authn_credential`. */
export const credentialJson = Schema.encodeSync(Schema.parseJson(WebAuthnCredential))

/** What the unique violation of `constraint` says about `factor`, when it is one of this table's. */
export const conflict = (
  factor: Pick<Factor, "friendlyName" | "phone">,
  constraint: string
): Option.Option<FactorNameTaken | FactorPhoneTaken | RecoveryCodesExist> => {
  if (constraint.endsWith("mfa_factors_user_friendly_name_unique")) {
    return Option.some(new FactorNameTaken({ friendlyName: factor.friendlyName }))
  }
  if (constraint.endsWith("mfa_factors_user_phone_unique")) {
    return Option.some(new FactorPhoneTaken({ phone: Option.getOrElse(factor.phone, () => "") }))
  }
  return constraint.endsWith("mfa_factors_one_recovery_code_set")
    ? Option.some(new RecoveryCodesExist())
    : Option.none()
}
