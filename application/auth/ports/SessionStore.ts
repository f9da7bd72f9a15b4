import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Session, SessionId } from "../../../domain/auth/Session.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"
import type * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"
import type { SealedSecret } from "./TokenSealer.js"

/** No refresh token has this digest: `refresh_token_not_found`. */
export class RefreshTokenNotFound extends Schema.TaggedError<RefreshTokenNotFound>()(
  "RefreshTokenNotFound",
  {}
) {}

/**
 * A retired refresh token came back outside the reuse interval: `refresh_token_already_used`.
 * With rotation on (reuse detection) the session has been revoked by this presentation or an
 * earlier one; with rotation off nothing was revoked.
 */
export class RefreshTokenAlreadyUsed extends Schema.TaggedError<RefreshTokenAlreadyUsed>()(
  "RefreshTokenAlreadyUsed",
  { sessionId: SessionId, sessionRevoked: Schema.Boolean }
) {}

/** The token's session was revoked (logout, or a reuse detected earlier). */
export class SessionRevoked extends Schema.TaggedError<SessionRevoked>()("SessionRevoked", {
  sessionId: SessionId
}) {}

/** The policy gave the tokens a lifetime and this one outlived it. */
export class RefreshTokenExpired extends Schema.TaggedError<RefreshTokenExpired>()("RefreshTokenExpired", {
  sessionId: SessionId
}) {}

export type RefreshFailure =
  | RefreshTokenNotFound
  | RefreshTokenAlreadyUsed
  | SessionRevoked
  | RefreshTokenExpired

export interface RefreshRequest {
  /** The digest of the presented refresh token. */
  readonly presented: SecretHash
  /**
   * The child the caller minted: its digest, and its plaintext sealed under the presented
   * token (`TokenSealer.seal`). Stored only if the presented token rotates; the sealed child
   * is kept on the presented token's row only while the policy has a reuse interval.
   */
  readonly child: { readonly hash: SecretHash; readonly sealed: SealedSecret }
  readonly policy: RefreshTokenFamily.Policy
  readonly now: Date
}

export type Refreshed =
  /** The presented token was the live one: the caller's child is now live. */
  | { readonly _tag: "Rotated"; readonly session: Session }
  /**
   * The presented token is the live one's parent, inside the reuse interval: the live child,
   * sealed under the presented token, for the caller to open and hand out again.
   */
  | { readonly _tag: "Reissued"; readonly session: Session; readonly child: SealedSecret }

/**
 * The auth service's sessions and their refresh tokens (kept as digests). A session is the
 * refresh-token family of its sign-in, ruled by `RefreshTokenFamily.decide`.
 */
export class SessionStore extends Context.Tag("latchkey/auth/SessionStore")<
  SessionStore,
  {
    /** Stores a new session (`Session.start`) with its first refresh token (generation 0). */
    readonly start: (session: Session, firstToken: SecretHash) => Effect.Effect<void>
    /**
     * Presents a refresh token: decides with `RefreshTokenFamily.decide` on the session as it
     * stands and carries the decision out, atomically (one transaction, the session's row
     * locked). Of concurrent presentations of one live token exactly one rotates; the others
     * are the parent's presentations, so inside the reuse interval each is reissued the same
     * child, and outside it each finds the reuse (revoking the session, with rotation on).
     */
    readonly refresh: (request: RefreshRequest) => Effect.Effect<Refreshed, RefreshFailure>
    /** The session, revoked or not (`Session.isActive` judges); none when unknown. */
    readonly findById: (id: SessionId) => Effect.Effect<Option.Option<Session>>
    /** Logout `local`: revokes one session; false when unknown or already revoked. */
    readonly revoke: (id: SessionId, now: Date) => Effect.Effect<boolean>
    /** Logout `global`: revokes every session of the user; how many this call revoked. */
    readonly revokeAll: (userId: UserId, now: Date) => Effect.Effect<number>
    /** Logout `others`: revokes every session of the user but `keep`; how many this call revoked. */
    readonly revokeOthers: (userId: UserId, keep: SessionId, now: Date) => Effect.Effect<number>
  }
>() {}
