import { Context, type Effect, type Option } from "effect"
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
    readonly issue: (issue: Issue) => Effect.Effect<void>
    readonly findAccess: (hash: SecretHash) => Effect.Effect<Option.Option<AccessToken>>
    readonly findRefresh: (hash: SecretHash) => Effect.Effect<Option.Option<RefreshTokenState>>
    /**
     * Applies `RefreshTokenFamily.decide` to the presented token atomically: of concurrent
     * presentations of one live token exactly one rotates. On reuse detection the family and
     * every access token minted with it are revoked in the same transaction.
     */
    readonly rotate: (request: RotateRequest) => Effect.Effect<Rotation>
    /** Revokes one access token; true only for the call that revoked it. */
    readonly revokeAccess: (hash: SecretHash, now: Date) => Effect.Effect<boolean>
    /** Revokes a family and its access tokens; true only for the call that revoked it. */
    readonly revokeFamily: (id: FamilyId, now: Date) => Effect.Effect<boolean>
    /** Revokes everything issued from a grant (a replayed authorization code); returns how many tokens. */
    readonly revokeGrant: (grantId: GrantId, now: Date) => Effect.Effect<number>
    /** Deletes access tokens and families that can never be active again as of `now`. */
    readonly purge: (now: Date) => Effect.Effect<Purged>
  }
>() {}
