import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { FactorId, FactorType } from "../../../domain/auth/Factor.js"
import type { Cutoffs, Session, SessionId } from "../../../domain/auth/Session.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"
import type { SealedSecret } from "../../ports/Secrets.js"
import type { Account } from "./UserRepository.js"

/** A rotation of the presented token into the caller's child. */
export interface Rotation {
  /** The digest of the presented refresh token. */
  readonly presented: SecretHash
  /** The child's digest: the new live token. */
  readonly child: SecretHash
  /**
   * The child's plaintext sealed under the presented token (`Secrets.seal`), kept on the
   * presented token's row to be handed out again inside the reuse interval; none without one.
   */
  readonly sealed: Option.Option<SealedSecret>
  /** The session limits its times must meet (`Session.meets`); none set: any session. */
  readonly cutoffs: Cutoffs
  readonly now: Date
}

/** A factor verified in a session: the raise of its assurance (`Assurance.raise`). */
export interface Raise {
  readonly sessionId: SessionId
  readonly factorId: FactorId
  readonly factorType: FactorType
  /** The digest of the new live refresh token, `Assurance.generationStep` generations on. */
  readonly child: SecretHash
  readonly now: Date
}

/** Which sessions outlived the limits on them (`SessionStore.reapOutlived`). */
export interface Outlived {
  readonly startedBefore: Option.Option<Date>
  readonly idleSince: Option.Option<Date>
}

/** A factor removed: the sessions it raised go back to aal1 (`Assurance.lower`). */
export interface Lowered {
  readonly userId: UserId
  readonly factorId: FactorId
  readonly factorType: FactorType
  readonly now: Date
}

/**
 * A session as a refresh leaves or finds it, with its user and their identities and factors
 * (oldest first) read in the same statement, as the refresh answers with them: none when the
 * user is gone.
 */
export interface WithAccount {
  readonly session: Session
  readonly account: Option.Option<Account>
}

/** A refresh token as storage knows it, read under its session's lock. */
export interface Presented extends WithAccount {
  /** The token's session as it stands. */
  readonly session: Session
  /** The token's own generation. */
  readonly generation: number
  /** The child the token was retired into, sealed under it, while it is kept. */
  readonly sealedChild: Option.Option<SealedSecret>
}

/**
 * The auth service's sessions and their refresh tokens (kept as digests). Storage only: the
 * rule that says what a presented token comes to is `Session.present`, carried out by
 * `RefreshSession`.
 */
export class SessionStore extends Context.Tag("latchkey/auth/SessionStore")<
  SessionStore,
  {
    /** Stores a new session (`Session.start`) with its first refresh token (generation 0). */
    readonly start: (session: Session, firstToken: SecretHash) => Effect.Effect<void>
    /**
     * Rotates the presented token when it is the live one of a session that has not ended
     * (`Session.present` says `Rotate`) and meets the rotation's cutoffs (`Session.meets`, its
     * user's level read from their verified factors), atomically: the session as
     * `Session.rotate` leaves it, the presented token retired holding `sealed` (the token
     * retired before it lets its own go), the child stored. None, with nothing written, for any
     * other token: unknown, retired, or of an ended session. Of concurrent rotations of one token
     * exactly one succeeds. The refreshes that arrive together share one statement, except inside
     * `Transactions.run`, where it runs in the transaction.
     */
    readonly rotate: (rotation: Rotation) => Effect.Effect<Option.Option<WithAccount>>
    /**
     * The presented token, its session locked until the enclosing `Transactions.run` ends, so
     * that presentations of one session's tokens are decided one after the other, each on the
     * state its predecessor left. None when no token has this digest.
     */
    readonly lockPresented: (presented: SecretHash) => Effect.Effect<Option.Option<Presented>>
    /**
     * A factor verified in a live session (docs/decisions/0015, "Assurance levels and AMR"),
     * atomically: the session as `Assurance.raise` leaves it (the factor's method recorded in
     * `amr`, the level recomputed, the factor remembered, the generation two on), every token
     * of the session retired with no sealed child kept — so the token held before the verify is
     * neither live nor the live token's parent, and is a reuse whenever it comes back — and
     * `child` stored as the live token; and every other live session of the user that
     * `Assurance.signedOutByVerify` signs out ended, their tokens' sealed children let go, as
     * Supabase Auth does after a verify. None, with nothing written, for a session that is
     * unknown or has ended. Raises of one session are applied one after the other. Joins the
     * transaction it runs in (`Transactions.run`).
     */
    readonly raise: (raise: Raise) => Effect.Effect<Option.Option<WithAccount>>
    /**
     * A factor removed (Supabase Auth's `DowngradeSessionsToAAL1`): every session of the user
     * the factor raised, as `Assurance.lower` leaves it — its method gone from `amr`, aal1, no
     * factor — so that its next refresh issues aal1 tokens; its tokens are left as they are.
     * Sessions raised by another factor keep their level. How many were lowered. Joins the
     * transaction it runs in (`Transactions.run`), the one that removes the factor.
     */
    readonly lowerRaisedBy: (lowered: Lowered) => Effect.Effect<number>
    /** The session, ended or not; none when unknown. */
    readonly findById: (id: SessionId) => Effect.Effect<Option.Option<Session>>
    /**
     * The user's sessions that have not ended, in no order; with `usedAfter`, only those last
     * used (refreshed, or signed in before any refresh) after it: what can supersede a session
     * used then, however many older ones the user has.
     */
    readonly liveOfUser: (
      userId: UserId,
      usedAfter: Option.Option<Date>
    ) => Effect.Effect<ReadonlyArray<Session>>
    /**
     * Ends one session (logout `local`, a detected reuse), letting its tokens' sealed children
     * go; false when unknown or already ended.
     */
    readonly revoke: (id: SessionId, now: Date) => Effect.Effect<boolean>
    /** Logout `global`: ends every session of the user; how many this call ended. */
    readonly revokeAll: (userId: UserId, now: Date) => Effect.Effect<number>
    /** Logout `others`: ends every session of the user but `keep`; how many this call ended. */
    readonly revokeOthers: (userId: UserId, keep: SessionId, now: Date) => Effect.Effect<number>
    /**
     * Deletes up to `limit` sessions that ended (a logout, a detected reuse, a sign-out by a
     * verify) before `endedBefore`, with all their tokens, passing over sessions a request holds
     * locked; how many. A token of a deleted session is unknown from then on.
     */
    readonly reapEnded: (endedBefore: Date, limit: number) => Effect.Effect<number>
    /**
     * Deletes up to `limit` sessions, ended or not, that signed in before `cutoffs.startedBefore`
     * or were last used (refreshed, or signed in before any refresh) before `cutoffs.idleSince`,
     * with all their tokens, passing over sessions a request holds locked; how many. A cutoff
     * that is none selects nothing.
     */
    readonly reapOutlived: (cutoffs: Outlived, limit: number) => Effect.Effect<number>
    /**
     * Deletes up to `limit` retired refresh tokens last changed before `retiredBefore` (retired
     * then, or their sealed child let go then), passing over tokens a request holds locked; how
     * many. Such a token presented again is unknown rather than a reuse.
     */
    readonly reapRetired: (retiredBefore: Date, limit: number) => Effect.Effect<number>
  }
>() {}
