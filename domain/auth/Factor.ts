import * as Arr from "effect/Array"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserId } from "../Ids.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"
import type { Aal } from "./Session.js"

/** A verification method of a user: Supabase Auth's `mfa_factors` row. */
export const FactorId = Schema.UUID.pipe(Schema.brand("FactorId"))
export type FactorId = typeof FactorId.Type

/**
 * What proves the factor: an authenticator app (`totp`), a texted code (`phone`), a security key
 * or platform authenticator (`webauthn`), or a set of single-use recovery codes
 * (`recovery_code`, auth-js's name; not in Supabase Auth's server, docs/decisions/0015).
 */
export const FactorType = Schema.Literal("totp", "phone", "webauthn", "recovery_code")
export type FactorType = typeof FactorType.Type

/** The types a user enrols through `POST /factors`; recovery codes have routes of their own. */
export const EnrolledType = Schema.Literal("totp", "phone", "webauthn")
export type EnrolledType = typeof EnrolledType.Type

/** A factor is `unverified` from enrolment until its first successful verify. */
export const FactorStatus = Schema.Literal("unverified", "verified")
export type FactorStatus = typeof FactorStatus.Type

export class Factor extends Schema.Class<Factor>("Factor")({
  id: FactorId,
  userId: UserId,
  /** `""` when the user gave none, as Supabase Auth keeps it. */
  friendlyName: Schema.String,
  factorType: FactorType,
  status: FactorStatus,
  /** A phone factor's number, digits only as numbers are stored (migration 0012). */
  phone: Schema.OptionFromNullOr(Schema.String),
  lastChallengedAt: Schema.OptionFromNullOr(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const isVerified = (factor: Factor): boolean => factor.status === "verified"

/**
 * Supabase Auth's `MFA_MAX_ENROLLED_FACTORS` (factors of any status) and
 * `MFA_MAX_VERIFIED_FACTORS`, both 10 by default.
 */
export interface Limits {
  readonly maxEnrolled: number
  readonly maxVerified: number
}

export const defaultLimits: Limits = { maxEnrolled: 10, maxVerified: 10 }

/**
 * Whether a user whose factors count so (recovery codes left out: `enrolled` of any status,
 * `verified`) may enrol one more: Supabase Auth refuses at either limit.
 */
export const withinLimits = (
  counts: { readonly enrolled: number; readonly verified: number },
  limits: Limits
): boolean => counts.enrolled < limits.maxEnrolled && counts.verified < limits.maxVerified

/**
 * `MFA_FACTOR_EXPIRY_DURATION`: how long an unverified factor nobody challenged is kept. Supabase
 * Auth raises anything shorter to its default, 300 s.
 */
export const minimumUnverifiedLifetime = Duration.seconds(300)

export const unverifiedLifetime = (configured: Duration.Duration): Duration.Duration =>
  Duration.max(configured, minimumUnverifiedLifetime)

/**
 * Whether an unverified factor is due for deletion at `now`: never challenged and older than the
 * lifetime. A challenged factor stays until its challenges are reaped (Supabase Auth's
 * `DeleteExpiredFactors`).
 */
export const isAbandoned = (
  factor: Factor,
  challenged: boolean,
  lifetime: Duration.Duration,
  now: Date
): boolean =>
  !isVerified(factor) &&
  !challenged &&
  now.getTime() > Time.plus(factor.createdAt, unverifiedLifetime(lifetime)).getTime()

/** Recovery codes are one set per user and never count against the factor limits. */
const countsTowardsLimits = (factor: Factor): boolean => factor.factorType !== "recovery_code"

/** What a user asks to enrol. */
export interface EnrolRequest {
  readonly factorType: EnrolledType
  readonly friendlyName: string
  /** A phone factor's number, normalised as stored. */
  readonly phone: Option.Option<string>
}

/** The outcome of an enrolment request, in the order Supabase Auth checks. */
export type Enrolment = Data.TaggedEnum<{
  /** Allowed; the listed unverified phone factors of the same number are deleted first. */
  Allowed: { readonly replaces: ReadonlyArray<FactorId> }
  /** A verified phone factor already has this number (`mfa_verified_factor_exists`). */
  VerifiedPhoneExists: {}
  /** Another factor of the user has this friendly name (`mfa_factor_name_conflict`). */
  NameConflict: { readonly friendlyName: string }
  /** `too_many_enrolled_mfa_factors`: the enrolled or the verified limit is reached. */
  TooManyFactors: {}
  /** The user has a verified factor and the session is below aal2 (`insufficient_aal`). */
  InsufficientAal: {}
}>
export const Enrolment = Data.taggedEnum<Enrolment>()

/**
 * The enrolment rule (`EnrollFactor` and `validateFactors`): `existing` are the user's factors
 * left after abandoned ones were deleted. A phone number already verified refuses; unverified
 * factors of that number are replaced. Friendly names are compared as they are, so a second
 * factor without a name conflicts with the first, as in Supabase Auth. The limits count factors
 * of any status, then verified ones; a user with a verified factor must be at aal2.
 */
export const enrol = (
  existing: ReadonlyArray<Factor>,
  request: EnrolRequest,
  limits: Limits,
  sessionAal: Aal
): Enrolment => {
  const samePhone =
    request.factorType === "phone"
      ? existing.filter(
          (factor) =>
            factor.factorType === "phone" &&
            Option.exists(factor.phone, (phone) => Option.contains(request.phone, phone))
        )
      : []
  if (samePhone.some(isVerified)) return Enrolment.VerifiedPhoneExists()
  const replaced = new Set(samePhone.map((factor) => factor.id))
  const remaining = existing.filter((factor) => !replaced.has(factor.id))
  if (remaining.some((factor) => factor.friendlyName === request.friendlyName)) {
    return Enrolment.NameConflict({ friendlyName: request.friendlyName })
  }
  const counted = remaining.filter(countsTowardsLimits)
  if (counted.length >= limits.maxEnrolled) return Enrolment.TooManyFactors()
  const verified = counted.filter(isVerified).length
  if (verified >= limits.maxVerified) return Enrolment.TooManyFactors()
  if (remaining.some(isVerified) && sessionAal !== "aal2") return Enrolment.InsufficientAal()
  return Enrolment.Allowed({ replaces: Arr.map(samePhone, (factor) => factor.id) })
}

/** Whether a factor may be removed by its user: a verified one only from an aal2 session. */
export const mayUnenrol = (factor: Factor, sessionAal: Aal): boolean =>
  !isVerified(factor) || sessionAal === "aal2"

/**
 * The highest level the user can reach (`User.HighestPossibleAAL`): aal2 once any factor is
 * verified.
 */
export const highestPossibleAal = (factors: ReadonlyArray<Factor>): Aal =>
  factors.some(isVerified) ? "aal2" : "aal1"

/**
 * The level auth-js's `getAuthenticatorAssuranceLevel` reports as `nextLevel`: aal2 when the user
 * has a verified factor, else the session's current level. The server never sends it; clients
 * compute it from the token's `aal` and the user's `factors`.
 */
export const nextLevel = (currentLevel: Aal, factors: ReadonlyArray<Factor>): Aal =>
  factors.some(isVerified) ? "aal2" : currentLevel

/**
 * `PUT /user` changing the password, email or phone of a user with a verified factor needs an
 * aal2 session (Supabase Auth: 401 `insufficient_aal`).
 */
export const updateNeedsAal2 = (
  factors: ReadonlyArray<Factor>,
  sessionAal: Aal,
  changesCredentials: boolean
): boolean => changesCredentials && factors.some(isVerified) && sessionAal !== "aal2"

/** The factor after its first successful verify at `now`; verifying again changes nothing. */
export const verify = (factor: Factor, now: Date): Factor =>
  isVerified(factor) ? factor : new Factor({ ...factor, status: "verified", updatedAt: now }, true)

/**
 * After a verify, Supabase Auth deletes the user's other unverified factors of the verified
 * factor's type (`DeleteUnverifiedFactors`).
 */
export const supersededBy = (verified: Factor, factors: ReadonlyArray<Factor>): ReadonlyArray<FactorId> =>
  factors
    .filter(
      (factor) =>
        factor.id !== verified.id && factor.factorType === verified.factorType && !isVerified(factor)
    )
    .map((factor) => factor.id)

/**
 * The recovery-code factor that must go when the user's factors become `remaining`: recovery codes
 * are never a user's only factor, so they leave with the last other verified factor.
 */
export const orphanedRecoveryCodes = (remaining: ReadonlyArray<Factor>): Option.Option<FactorId> => {
  const others = remaining.some((factor) => factor.factorType !== "recovery_code" && isVerified(factor))
  return others
    ? Option.none()
    : Option.map(
        Arr.findFirst(remaining, (factor) => factor.factorType === "recovery_code"),
        (factor) => factor.id
      )
}

/** The record of a challenge sent at `now`: `last_challenged_at`, which paces texted codes. */
export const challenged = (factor: Factor, now: Date): Factor =>
  new Factor({ ...factor, lastChallengedAt: Option.some(now) }, true)
