import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Factor, FactorId, Limits } from "../../../domain/auth/Factor.js"
import type { ChallengeId, FactorChallenge } from "../../../domain/auth/FactorChallenge.js"
import type * as RecoveryCodes from "../../../domain/auth/RecoveryCodes.js"
import type { WebAuthnCredential } from "../../../domain/auth/WebAuthnCredential.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"

/**
 * Another factor of the user already has this (non-blank) friendly name: the table's unique
 * index caught what `Factor.enrol` could not see, a concurrent enrolment or an admin rename.
 */
export class FactorNameTaken extends Schema.TaggedError<FactorNameTaken>()("FactorNameTaken", {
  friendlyName: Schema.String
}) {}

/** Another factor of the user already has this number (one factor per user and number). */
export class FactorPhoneTaken extends Schema.TaggedError<FactorPhoneTaken>()("FactorPhoneTaken", {
  phone: Schema.String
}) {}

/**
 * The user's factors are at `MFA_MAX_ENROLLED_FACTORS` or `MFA_MAX_VERIFIED_FACTORS`
 * (`Factor.withinLimits`), counted when the new one would be stored.
 */
export class FactorLimitReached extends Schema.TaggedError<FactorLimitReached>()("FactorLimitReached", {}) {}

/** The user already has a set of recovery codes (one per user). */
export class RecoveryCodesExist extends Schema.TaggedError<RecoveryCodesExist>()("RecoveryCodesExist", {}) {}

/**
 * The factor was challenged after the caller's `lastBefore` (`MFA_PHONE_MAX_FREQUENCY`): no
 * challenge is made, and `lastChallengedAt` says how long to wait.
 */
export class ChallengedTooSoon extends Schema.TaggedError<ChallengedTooSoon>()("ChallengedTooSoon", {
  lastChallengedAt: Schema.DateFromSelf
}) {}

/** A factor with what only its verification reads, never shown to its user. */
export interface StoredFactor {
  readonly factor: Factor
  /**
   * A TOTP factor's base32 secret as stored, as Supabase Auth stores it (docs/decisions/0015):
   * in the clear, or sealed under the operator's key (SecretsAtRest opens it).
   */
  readonly secret: Option.Option<string>
  /** The time step of the last TOTP code accepted (`Totp.decide`). */
  readonly lastTotpStep: Option.Option<number>
  /** A verified WebAuthn factor's credential. */
  readonly webAuthn: Option.Option<WebAuthnCredential>
  /** Its authenticator's AAGUID (`web_authn_aaguid`), when it told one. */
  readonly webAuthnAaguid: Option.Option<string>
  /** The recovery-code factor's lockout record (`RecoveryCodes.Attempts`). */
  readonly attempts: RecoveryCodes.Attempts
}

/** What a WebAuthn factor's registration leaves on it. */
export interface Registration {
  readonly credential: WebAuthnCredential
  readonly aaguid: Option.Option<string>
}

/** What presenting a challenge to `useChallenge` came to. */
export type ChallengeUse =
  | { readonly _tag: "Used"; readonly challenge: FactorChallenge }
  | { readonly _tag: "Gone" }
  | { readonly _tag: "StepRefused" }

/** The factors of a user that count towards the limits (all but recovery codes), by status. */
export interface Counts {
  readonly enrolled: number
  readonly verified: number
}

/** What an admin (or the user) changes on a factor; none: left as it is. */
export interface Changes {
  readonly friendlyName: Option.Option<string>
  readonly phone: Option.Option<string>
}

/** A user's set of recovery codes as `GET /factors/recovery-codes` reports it. */
export interface RecoveryCodesStatus {
  readonly factor: Factor
  readonly status: RecoveryCodes.Status
}

/** What one recovery-code attempt came to, on the set's factor. */
export interface RecoveryAttempt {
  readonly factor: Factor
  readonly outcome: RecoveryCodes.Outcome
}

/**
 * The factors of the users (`Factor`, Supabase Auth's `mfa_factors`), their challenges
 * (`FactorChallenge`) and the recovery codes of the recovery-code factor. Texted codes and
 * recovery codes are kept as digests; TOTP secrets as they are given (they compute codes: in
 * the clear, or sealed by SecretsAtRest).
 *
 * The once-only transitions are single conditional steps, so of concurrent attempts exactly one
 * wins: `markVerified`, `useChallenge`, `takeChallenge`, `advanceWebAuthnCounter` and a
 * recovery code's
 * use in `attemptRecoveryCode`. Every verb joins the transaction it runs in
 * (`Transactions.run`), so a verify spends its challenge in the transaction that raises the
 * session, and a failed raise gives the challenge back.
 */
export class FactorStore extends Context.Tag("latchkey/auth/FactorStore")<
  FactorStore,
  {
    /**
     * Stores a new factor (an unverified one, from `POST /factors`) with its TOTP secret, unless
     * its user's factors are at `limits` (`Factor.withinLimits`). The count and the insert are
     * one step: concurrent enrolments of one user cannot pass the limits together. The user
     * must exist (a gone user is a defect). The user's unverified factors it `replaces` (of the
     * same number) go in that step first: enrolments of one number at once then wait for each
     * other in one order, never each on the other's rows (a deadlock in PostgreSQL).
     */
    readonly enrol: (
      factor: Factor,
      secret: Option.Option<string>,
      limits: Limits,
      replaces?: ReadonlyArray<FactorId>
    ) => Effect.Effect<void, FactorNameTaken | FactorPhoneTaken | RecoveryCodesExist | FactorLimitReached>
    /** The user's factors, recovery codes included, oldest first. */
    readonly list: (userId: UserId) => Effect.Effect<ReadonlyArray<Factor>>
    /** One of the user's factors; none when it is gone or someone else's. */
    readonly find: (userId: UserId, factorId: FactorId) => Effect.Effect<Option.Option<StoredFactor>>
    readonly count: (userId: UserId) => Effect.Effect<Counts>
    /**
     * Marks an unverified factor verified at `now` (a WebAuthn factor with its registration).
     * Once only: the factor when this call verified it, none when it was verified already or is
     * gone — so the "factor enrolled" mail goes once however many verify at the same moment.
     */
    readonly markVerified: (
      userId: UserId,
      factorId: FactorId,
      now: Date,
      registration: Option.Option<Registration>
    ) => Effect.Effect<Option.Option<Factor>>
    /** Changes a factor's name or number at `now`; none when it is gone or someone else's. */
    readonly update: (
      userId: UserId,
      factorId: FactorId,
      changes: Changes,
      now: Date
    ) => Effect.Effect<Option.Option<Factor>, FactorNameTaken | FactorPhoneTaken>
    /** Deletes one factor with its challenges (and codes); the factor, or none when it was gone. */
    readonly remove: (userId: UserId, factorId: FactorId) => Effect.Effect<Option.Option<Factor>>
    /** Deletes every factor of the user; the ones deleted. */
    readonly removeAll: (userId: UserId) => Effect.Effect<ReadonlyArray<Factor>>
    /**
     * Deletes the unverified factors of every user created before `createdBefore` that have no
     * challenge (`Factor.isAbandoned`, Supabase Auth's `DeleteExpiredFactors`), at most `limit`, passing over rows a request holds locked (a later call takes them); how many.
     */
    readonly removeAbandoned: (createdBefore: Date, limit: number) => Effect.Effect<number>
    /**
     * Records `signCount`, the counter of an assertion a verified WebAuthn factor's credential
     * made, if it is above the stored one (`0` is accepted while the stored one is `0`, for
     * authenticators without a counter): false when it is not — a cloned authenticator, or a
     * concurrent verify that recorded a later counter — or when the factor has no credential.
     */
    readonly advanceWebAuthnCounter: (factorId: FactorId, signCount: number) => Effect.Effect<boolean>
    /**
     * Writes a TOTP factor's secret in a new stored form (`SecretsAtRest.reseal`) if it is still
     * stored as `from`: true when it was written, false when the factor is gone or its secret
     * changed meanwhile (a concurrent verify resealed it first).
     */
    readonly replaceSecret: (factorId: FactorId, from: string, to: string) => Effect.Effect<boolean>

    /**
     * Stores a challenge and stamps its factor's `last_challenged_at` with its creation time —
     * unless, with `lastBefore`, the factor was last challenged at or after it (phone pacing),
     * in which case nothing changes. Atomic: of concurrent challenges within the pacing one is
     * made. False when the factor is gone.
     */
    readonly createChallenge: (
      challenge: FactorChallenge,
      lastBefore: Option.Option<Date>
    ) => Effect.Effect<boolean, ChallengedTooSoon>
    /** A challenge of this factor, spent or not. */
    readonly findChallenge: (
      factorId: FactorId,
      challengeId: ChallengeId
    ) => Effect.Effect<Option.Option<FactorChallenge>>
    /**
     * Spends the challenge at `now` (`verified_at`) and, for a TOTP code, records `totpStep` as
     * the factor's last accepted step — both or neither, in one step: `Gone` when the challenge
     * was spent already or is not there, `StepRefused` when the step is not later than the last
     * one accepted (a replay, or a concurrent verify with the same code won).
     */
    readonly useChallenge: (
      factorId: FactorId,
      challengeId: ChallengeId,
      now: Date,
      totpStep: Option.Option<number>
    ) => Effect.Effect<ChallengeUse>
    /**
     * Deletes the challenge and returns it, once (WebAuthn challenges are spent so, and expired
     * ones deleted); none when it is gone.
     */
    readonly takeChallenge: (
      factorId: FactorId,
      challengeId: ChallengeId
    ) => Effect.Effect<Option.Option<FactorChallenge>>
    /**
     * Deletes the challenges of every factor created before `createdBefore`, at most `limit`, passing over rows a request holds locked (a later call takes them); how many.
     */
    readonly reapChallenges: (createdBefore: Date, limit: number) => Effect.Effect<number>

    /**
     * Stores the user's recovery-code factor (verified from birth) with its codes' digests,
     * both or neither.
     */
    readonly createRecoveryCodes: (
      factor: Factor,
      codeHashes: ReadonlyArray<SecretHash>
    ) => Effect.Effect<void, RecoveryCodesExist | FactorNameTaken>
    /**
     * Replaces the codes of the user's set with new digests at `now` and clears its lockout;
     * the set's factor, none when the user has no set.
     */
    readonly replaceRecoveryCodes: (
      userId: UserId,
      codeHashes: ReadonlyArray<SecretHash>,
      now: Date
    ) => Effect.Effect<Option.Option<Factor>>
    /** The user's set and how many of its codes are left; none when there is no set. */
    readonly recoveryCodes: (userId: UserId) => Effect.Effect<Option.Option<RecoveryCodesStatus>>
    /**
     * One attempt with a recovery code (its digest; none for input that cannot be a code),
     * decided by `RecoveryCodes.attempt` under `policy` on the set's record, which it updates:
     * a matching unused code is spent at `now`, once however many present it at the same moment;
     * attempts on one set are counted one after the other. None when the user has no set.
     *
     * A `Rejected` or `Locked` outcome is a value, not a failure: a caller inside
     * `Transactions.run` must let the transaction commit for the failure to be counted.
     */
    readonly attemptRecoveryCode: (
      userId: UserId,
      codeHash: Option.Option<SecretHash>,
      policy: RecoveryCodes.LockoutPolicy,
      now: Date
    ) => Effect.Effect<Option.Option<RecoveryAttempt>>
  }
>() {}
