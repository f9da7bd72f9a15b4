import * as Schema from "effect/Schema"
import { SecretHash, UserId } from "../Ids.js"
import * as Time from "../Time.js"
import * as Lifetimes from "./Lifetimes.js"

/**
 * The server-side session behind the cookie a confidential web client's user gets at our
 * callback: a later authorize from that browser skips the upstream round trip.
 */
export class BrowserSession extends Schema.Class<BrowserSession>("BrowserSession")({
  tokenHash: SecretHash,
  userId: UserId,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf
}) {}

export const expiryFor = (createdAt: Date): Date => Time.plus(createdAt, Lifetimes.browserSession)

export const isActive = (session: BrowserSession, now: Date): boolean =>
  !Time.isAtOrAfter(now, session.expiresAt)
