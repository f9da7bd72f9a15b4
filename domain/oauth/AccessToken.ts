import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientId, FamilyId, GrantId, SecretHash, UserId } from "../Ids.js"
import * as Time from "../Time.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * An opaque oauth access token (stored in `user_tokens`). Resource servers learn what it
 * grants through introspection, so everything they may ask about is kept with it.
 */
export class AccessToken extends Schema.Class<AccessToken>("AccessToken")({
  hash: SecretHash,
  userId: UserId,
  clientId: ClientId,
  grantId: Schema.OptionFromNullOr(GrantId),
  /** The refresh-token family it was minted with, so revoking the family revokes it too. */
  familyId: Schema.OptionFromNullOr(FamilyId),
  scope: Schema.OptionFromNullOr(Schema.String),
  /** RFC 8707 resource indicator the token is bound to (its audience). */
  resource: Schema.OptionFromNullOr(Schema.String),
  issuedAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  revokedAt: Schema.OptionFromNullOr(Schema.DateFromSelf)
}) {}

export const expiryFor = (issuedAt: Date): Date => Time.plus(issuedAt, Lifetimes.oauthAccessToken)

/** Active in the RFC 7662 sense: neither expired nor revoked. */
export const isActive = (token: AccessToken, now: Date): boolean =>
  Option.isNone(token.revokedAt) && now.getTime() < token.expiresAt.getTime()

export const isDead = (token: AccessToken, now: Date): boolean => !isActive(token, now)
