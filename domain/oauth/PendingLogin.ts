import * as Schema from "effect/Schema"
import { SecretHash } from "../Ids.js"
import * as Time from "../Time.js"
import * as AuthorizationRequest from "./AuthorizationRequest.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * An authorize request parked while the user logs in at the upstream IdP. It is found again
 * by the `state` we sent upstream, of which only the hash is stored; the upstream nonce and
 * PKCE verifier are derived from that state, so no upstream secret is stored either.
 */
export class PendingLogin extends Schema.Class<PendingLogin>("PendingLogin")({
  stateHash: SecretHash,
  ...AuthorizationRequest.fields,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf
}) {}

export const expiryFor = (createdAt: Date): Date => Time.plus(createdAt, Lifetimes.pendingLogin)

export const isExpired = (pending: PendingLogin, now: Date): boolean =>
  Time.isAtOrAfter(now, pending.expiresAt)
