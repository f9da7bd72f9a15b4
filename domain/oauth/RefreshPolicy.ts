import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type { Policy } from "../RefreshTokenFamily.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * A used token is never accepted again and always revokes its family (RFC 9700 §4.14.2):
 * public clients cannot prove possession otherwise, so a replay means theft. The family lives
 * 30 days after its last use and is bound to the client it was issued to.
 */
export const oauthPolicy: Policy = {
  reuseDetection: true,
  reuseInterval: Duration.zero,
  slidingLifetime: Option.some(Lifetimes.oauthRefreshToken),
  bindsClient: true
}
