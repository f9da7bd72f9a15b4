import { Schema } from "effect"
import { ClientId, SecretHash, UserId } from "./Ids.js"
import * as Lifetimes from "./Lifetimes.js"
import { CodeChallenge } from "./Pkce.js"
import * as Time from "./Time.js"

/**
 * A login that came back from the upstream for a client the user has not yet approved. It
 * waits, keyed by the hash of the token in the consent form, for the user's decision.
 */
export class PendingConsent extends Schema.Class<PendingConsent>("PendingConsent")({
  tokenHash: SecretHash,
  userId: UserId,
  clientId: ClientId,
  redirectUri: Schema.String,
  codeChallenge: Schema.OptionFromNullOr(CodeChallenge),
  clientState: Schema.OptionFromNullOr(Schema.String),
  scope: Schema.OptionFromNullOr(Schema.String),
  resource: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf
}) {}

export const expiryFor = (createdAt: Date): Date => Time.plus(createdAt, Lifetimes.pendingLogin)

export const isExpired = (pending: PendingConsent, now: Date): boolean =>
  Time.isAtOrAfter(now, pending.expiresAt)
