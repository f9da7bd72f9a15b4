import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SecretHash } from "../Ids.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"
import type { Factor } from "./Factor.js"
import { FactorId } from "./Factor.js"
import { WebAuthnCeremony } from "./WebAuthnCeremony.js"

export const ChallengeId = Schema.UUID.pipe(Schema.brand("ChallengeId"))
export type ChallengeId = typeof ChallengeId.Type

/**
 * One attempt to prove a factor: Supabase Auth's `mfa_challenges` row. It is bound to the
 * address it was asked from and used once: `verifiedAt` is set by the verify that succeeds with
 * it, in the same transaction that raises the session. A phone challenge keeps the texted code as
 * a digest; a WebAuthn one what its ceremony is checked against.
 */
export class FactorChallenge extends Schema.Class<FactorChallenge>("FactorChallenge")({
  id: ChallengeId,
  factorId: FactorId,
  ipAddress: Schema.String,
  otpCodeHash: Schema.OptionFromNullOr(SecretHash),
  webAuthn: Schema.OptionFromNullOr(WebAuthnCeremony),
  createdAt: Timestamp,
  verifiedAt: Schema.OptionFromNullOr(Timestamp)
}) {}

/** `MFA_CHALLENGE_EXPIRY_DURATION` (seconds); Supabase Auth raises anything shorter to 300. */
export const minimumLifetime = Duration.seconds(300)

export const lifetime = (configured: Duration.Duration): Duration.Duration =>
  Duration.max(configured, minimumLifetime)

/** When the challenge stops being usable: the `expires_at` of the challenge answer. */
export const expiresAt = (challenge: FactorChallenge, configured: Duration.Duration): Date =>
  Time.plus(challenge.createdAt, lifetime(configured))

/** The `expires_at` of the challenge answer, in unix seconds. */
export const expiresAtSeconds = (challenge: FactorChallenge, configured: Duration.Duration): number =>
  Math.floor(expiresAt(challenge, configured).getTime() / 1000)

/** How a challenge presented at a verify stands, in the order Supabase Auth checks. */
export type Standing = Data.TaggedEnum<{
  Usable: {}
  /**
   * Already used, or asked for from another address: Supabase Auth answers both with
   * `mfa_ip_address_mismatch`.
   */
  Spent: {}
  /** Past its lifetime (`mfa_challenge_expired`); the challenge is deleted. */
  Expired: {}
}>
export const Standing = Data.taggedEnum<Standing>()

/**
 * The challenge rule at a verify from `ipAddress` at `now`. Expiry is strict: usable through the
 * instant `expiresAt` itself. A wrong code does not spend the challenge; only success does
 * (`use`), so attempts are bounded by the verify rate limit and the lifetime.
 */
export const standing = (
  challenge: FactorChallenge,
  ipAddress: string,
  now: Date,
  configured: Duration.Duration
): Standing => {
  if (Option.isSome(challenge.verifiedAt) || challenge.ipAddress !== ipAddress) return Standing.Spent()
  if (now.getTime() > expiresAt(challenge, configured).getTime()) return Standing.Expired()
  return Standing.Usable()
}

/** The challenge spent by a successful verify at `now`; a spent one stays as it was. */
export const use = (challenge: FactorChallenge, now: Date): FactorChallenge =>
  Option.isSome(challenge.verifiedAt)
    ? challenge
    : new FactorChallenge({ ...challenge, verifiedAt: Option.some(now) }, true)

/** `MFA_PHONE_MAX_FREQUENCY`: `0` means one minute, as in Supabase Auth. */
export const phoneMaxFrequency = (configured: Duration.Duration): Duration.Duration =>
  Duration.equals(configured, Duration.zero) ? Duration.minutes(1) : configured

/** `MFA_PHONE_OTP_LENGTH`: 6 to 10 digits; anything else means 6. */
export const phoneCodeLength = (configured: number): number =>
  Number.isInteger(configured) && configured >= 6 && configured <= 10 ? configured : 6

/**
 * How many seconds a phone factor must still wait before another code is texted, if it must:
 * until `MFA_PHONE_MAX_FREQUENCY` after its last challenge, whole seconds rounded down as Supabase
 * Auth's "you can only request this after N seconds" counts them (so 0 in the last second).
 */
export const phoneWait = (
  factor: Factor,
  now: Date,
  maxFrequency: Duration.Duration
): Option.Option<number> =>
  Option.flatMap(factor.lastChallengedAt, (last) => {
    const allowedFrom = Time.plus(last, phoneMaxFrequency(maxFrequency)).getTime()
    return allowedFrom < now.getTime()
      ? Option.none()
      : Option.some(Math.trunc((allowedFrom - now.getTime()) / 1000))
  })
