import * as Schema from "effect/Schema"
import { SecretHash, UserId } from "../Ids.js"
import { Timestamp } from "../Timestamp.js"
import { FlowStateId } from "./FlowState.js"

/**
 * What a one-time token proves when it comes back: the purposes of Supabase Auth's
 * `one_time_tokens`, one live token per user and purpose.
 */
export const Purpose = Schema.Literal(
  "confirmation",
  "recovery",
  "invite",
  "magic_link",
  "email_change_current",
  "email_change_new",
  "reauthentication",
  "phone_change"
)
export type Purpose = typeof Purpose.Type

export const OneTimeTokenId = Schema.UUID.pipe(Schema.brand("OneTimeTokenId"))
export type OneTimeTokenId = typeof OneTimeTokenId.Type

/**
 * A mailed (or texted) proof, in two forms: a link token (long, random: the `token_hash` of a
 * link) and a short code to type. Both are kept only as digests; the code's digest covers the
 * user's id, so that equal codes of two users differ. Either form uses the token up.
 */
export class OneTimeToken extends Schema.Class<OneTimeToken>("OneTimeToken")({
  id: OneTimeTokenId,
  userId: UserId,
  purpose: Purpose,
  /** The address or number the token was sent to. */
  sentTo: Schema.String,
  linkHash: SecretHash,
  codeHash: SecretHash,
  failedAttempts: Schema.Int,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  /**
   * When it was used; kept so that the spacing between two mails of one purpose
   * (`SMTP_MAX_FREQUENCY`) counts from the last one sent, used or not.
   */
  usedAt: Schema.OptionFromNullOr(Timestamp),
  /** The PKCE flow the token's link ends in (`FlowState`); none: the session in the fragment. */
  flowStateId: Schema.OptionFromNullOr(FlowStateId)
}) {}

/**
 * Wrong codes a token survives: the next wrong one ends it. A six-digit code has a million
 * values; five guesses per mail leave an attacker one chance in 200,000 per mail sent, where
 * Supabase Auth leaves codes to IP rate limits alone.
 */
export const maxFailedAttempts = 5

/** What the digest of a code covers: the user and the code. */
export const codeSubject = (userId: UserId, code: string): string => `${userId}:${code}`

/**
 * The purposes a `type` of POST or GET /verify accepts (`sms` and `phone_change` with a phone
 * number only). `email` is Supabase Auth's newer name
 * for any email code (sign-up confirmation, magic link, recovery); `magiclink` also confirms an
 * unconfirmed address, as a magic link to a new user does.
 */
export const purposesOf = (type: string): ReadonlyArray<Purpose> | undefined => {
  switch (type) {
    case "signup":
      return ["confirmation"]
    case "invite":
      return ["invite"]
    case "recovery":
      return ["recovery"]
    case "magiclink":
      return ["magic_link", "confirmation"]
    case "email":
      return ["confirmation", "magic_link", "recovery", "invite"]
    case "email_change":
      return ["email_change_current", "email_change_new"]
    case "sms":
      return ["confirmation"]
    case "phone_change":
      return ["phone_change"]
    default:
      return undefined
  }
}
