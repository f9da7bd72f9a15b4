import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type {
  ChallengePurpose,
  Passkey,
  PasskeyChallenge,
  PasskeyChallengeId,
  PasskeyId
} from "../../../domain/auth/Passkey.js"
import type { UserId } from "../../../domain/Ids.js"

/**
 * A passkey with this credential id is stored already, the user's or anyone's
 * (`webauthn_credential_exists`): the table's unique index caught it.
 */
export class CredentialTaken extends Schema.TaggedError<CredentialTaken>()("CredentialTaken", {
  credentialId: Schema.String
}) {}

/** The user holds `PASSKEY_MAX_PASSKEYS_PER_USER` passkeys already (`too_many_passkeys`). */
export class TooManyPasskeys extends Schema.TaggedError<TooManyPasskeys>()("TooManyPasskeys", {
  maxPerUser: Schema.Int
}) {}

/** What an accepted sign-in leaves on its passkey. */
export interface Use {
  /** The counter the assertion presented (`Passkey.signCountAccepted` against the stored one). */
  readonly signCount: number
  /** The authenticator's backup state as the assertion's flags tell it now. */
  readonly backedUp: boolean
  readonly at: Date
}

/**
 * The users' passkeys (`Passkey`, Supabase Auth's `webauthn_credentials`) and the challenges of
 * their registration and sign-in ceremonies (`PasskeyChallenge`, `webauthn_challenges`), whose
 * challenge is kept only as a digest (docs/decisions/0015).
 *
 * The once-only steps are single conditional statements, so of concurrent attempts exactly one
 * wins: `takeChallenge` (a challenge is spent by deleting it), `recordUse` (the counter only
 * moves forward), and `register` under the per-user limit. Every verb joins the transaction it
 * runs in (`Transactions.run`), so a verify spends its challenge in the transaction that stores
 * the passkey or issues the session, and a failure there gives the challenge back.
 */
export class PasskeyStore extends Context.Tag("latchkey/auth/PasskeyStore")<
  PasskeyStore,
  {
    /**
     * Stores a new passkey unless its user holds `maxPerUser` already or its credential id is
     * taken. The count and the insert are one step: concurrent registrations of one user cannot
     * pass the limit together. The user must exist (a gone user is a defect).
     */
    readonly register: (
      passkey: Passkey,
      maxPerUser: number
    ) => Effect.Effect<void, CredentialTaken | TooManyPasskeys>
    /** The user's passkeys, oldest first (`GET /passkeys`, the registration's exclusion list). */
    readonly list: (userId: UserId) => Effect.Effect<ReadonlyArray<Passkey>>
    /**
     * The passkey of a discoverable sign-in: the one with this credential id (base64url) that
     * belongs to the user its assertion's user handle names (`WebAuthnCeremony.userIdOfHandle`).
     * None when no passkey has that id, or when it is another user's: the handle binds the
     * credential to its user, never the other way round.
     */
    readonly findByCredential: (userId: UserId, credentialId: string) => Effect.Effect<Option.Option<Passkey>>
    /** Renames one of the user's passkeys at `now`; none when it is gone or someone else's. */
    readonly rename: (
      userId: UserId,
      passkeyId: PasskeyId,
      friendlyName: string,
      now: Date
    ) => Effect.Effect<Option.Option<Passkey>>
    /** Deletes one of the user's passkeys; the passkey, or none when it was gone or someone else's. */
    readonly remove: (userId: UserId, passkeyId: PasskeyId) => Effect.Effect<Option.Option<Passkey>>
    /** Deletes every passkey of the user; the ones deleted. */
    readonly removeAll: (userId: UserId) => Effect.Effect<ReadonlyArray<Passkey>>
    /**
     * Records an accepted sign-in with the passkey, if its counter is accepted against the stored
     * one (`Passkey.signCountAccepted`: larger, or 0 against 0) at the moment of the write: the
     * passkey as it is now, none when the counter was refused (a replayed assertion, a cloned
     * authenticator, or a concurrent sign-in with the same counter that won) or the passkey is
     * gone.
     */
    readonly recordUse: (passkeyId: PasskeyId, use: Use) => Effect.Effect<Option.Option<Passkey>>

    /** Stores a challenge handed out with registration or sign-in options. */
    readonly createChallenge: (challenge: PasskeyChallenge) => Effect.Effect<void>
    /**
     * Deletes the challenge with this id, purpose and user (none for a sign-in) and returns it,
     * expired or not, once however many present it at the same moment; none when there is no
     * such challenge (never made, spent, reaped, or another flow's or user's, which it leaves
     * alone). `Passkey.standing` then says whether it was still usable.
     */
    readonly takeChallenge: (
      challengeId: PasskeyChallengeId,
      purpose: ChallengePurpose,
      userId: Option.Option<UserId>
    ) => Effect.Effect<Option.Option<PasskeyChallenge>>
    /**
     * Deletes the challenges that expired before `now` (usable at the instant itself), at most `limit`, passing over rows a request holds locked (a later call takes them); how many.
     */
    readonly reapChallenges: (now: Date, limit: number) => Effect.Effect<number>
  }
>() {}
