import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ClientId, FamilyId, GrantId, SecretHash } from "../../../domain/Ids.js"
import type { AccessToken } from "../../../domain/oauth/AccessToken.js"
import type * as RefreshTokenFamily from "../../../domain/RefreshTokenFamily.js"

/** The tokens of one grant, written together. */
export interface Issue {
  readonly access: AccessToken
  /** A new refresh-token family with the hash of its first (generation 0) token. */
  readonly refresh: Option.Option<{
    readonly family: RefreshTokenFamily.Family
    readonly tokenHash: SecretHash
  }>
}

export interface RotateRequest {
  readonly presented: SecretHash
  /** The authenticated client presenting the token; access tokens are minted for it. */
  readonly presenter: ClientId
  readonly policy: RefreshTokenFamily.Policy
  /** Hash of the child refresh token, stored only if the decision is to rotate. */
  readonly childHash: SecretHash
  /** Hash and expiry of the access token issued with the child; it inherits user, client, scope. */
  readonly accessHash: SecretHash
  readonly accessExpiresAt: Date
  readonly now: Date
}

export type Rotation =
  | { readonly _tag: "UnknownToken" }
  | {
      readonly _tag: "Decided"
      readonly decision: RefreshTokenFamily.Decision
      /** The family as it stands after the decision was carried out. */
      readonly family: RefreshTokenFamily.Family
    }

export interface RefreshTokenState {
  readonly family: RefreshTokenFamily.Family
  readonly generation: number
}

export interface Purged {
  readonly accessTokens: number
  readonly families: number
}

/** Access tokens (`user_tokens`) and refresh-token families (`refresh_tokens`). */
export class TokenStore extends Context.Tag("latchkey/oauth/TokenStore")<
  TokenStore,
  {
    /** Writes the access token and, if any, the new family with its first token: all or nothing. */
    readonly issue: (issue: Issue) => Effect.Effect<void>
    /** The access token with this hash, active or not (`AccessToken.isActive` judges); none if unknown. */
    readonly findAccess: (hash: SecretHash) => Effect.Effect<Option.Option<AccessToken>>
    /** The family of the refresh token with this hash and that token's generation; none if unknown. */
    readonly findRefresh: (hash: SecretHash) => Effect.Effect<Option.Option<RefreshTokenState>>
    /**
     * Applies `RefreshTokenFamily.decide` to the presented token. A rotation is atomic: of
     * concurrent presentations of one live token exactly one rotates, and the family, the child
     * and the new access token are written together. On reuse detection the family and every
     * access token minted with it are revoked, one minted by a rotation in flight included.
     *
     * The memory adapter decides and carries out any decision in one atomic step. Postgres
     * rotates with one conditional statement; when that does not rotate, it reads the family
     * again, decides, and on reuse revokes as `revokeFamily` does: in a transaction of its own,
     * after the read, not in one with it. That is safe because a token that is not live never
     * becomes live again, so the verdict cannot go stale before the revocation, and revoking a
     * revoked family is a no-op. Hence on Postgres several concurrent replays may each be told
     * `ReuseDetected` while the family is revoked once, and the `family` returned with that
     * decision is the one read, marked revoked at `now`.
     */
    readonly rotate: (request: RotateRequest) => Effect.Effect<Rotation>
    /** Revokes one access token; true only for the call that revoked it. */
    readonly revokeAccess: (hash: SecretHash, now: Date) => Effect.Effect<boolean>
    /**
     * Revokes a family and its access tokens, one minted by a rotation in flight included; true
     * only for the call that revoked the family (a call that finds it revoked changes nothing).
     */
    readonly revokeFamily: (id: FamilyId, now: Date) => Effect.Effect<boolean>
    /**
     * Revokes everything issued from a grant (a replayed authorization code): its families and
     * the access tokens issued from it or minted with them. Returns how many families and
     * access tokens this call revoked. Tokens the grant's code exchange writes after this call
     * (an exchange still in flight) are not affected.
     */
    readonly revokeGrant: (grantId: GrantId, now: Date) => Effect.Effect<number>
    /**
     * Deletes at most `limit` access tokens and at most `limit` families that can never be
     * active again as of `now` (expired or revoked), the families with their refresh tokens,
     * passing over rows a request holds; returns how many of each.
     */
    readonly purge: (now: Date, limit: number) => Effect.Effect<Purged>
  }
>() {}
