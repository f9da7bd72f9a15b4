import * as Schema from "effect/Schema"
import { SecretHash, UserId } from "../Ids.js"
import * as Time from "../Time.js"
import * as AuthorizationRequest from "./AuthorizationRequest.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * A login that came back from the upstream for a client the user has not yet approved. It
 * waits, keyed by the hash of the token in the consent form, for the user's decision.
 */
export class PendingConsent extends Schema.Class<PendingConsent>("PendingConsent")({
  tokenHash: SecretHash,
  userId: UserId,
  ...AuthorizationRequest.fields,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf
}) {}

export const expiryFor = (createdAt: Date): Date => Time.plus(createdAt, Lifetimes.pendingLogin)

export const isExpired = (pending: PendingConsent, now: Date): boolean =>
  Time.isAtOrAfter(now, pending.expiresAt)
