import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { OneTimeToken, Purpose } from "../../../domain/auth/OneTimeToken.js"
import type { SecretHash, UserId } from "../../../domain/Ids.js"

/** The user's live token of the purpose was issued after the caller's `notAfter`: none is issued. */
export class IssuedTooSoon extends Schema.TaggedError<IssuedTooSoon>()("IssuedTooSoon", {
  lastIssuedAt: Schema.DateFromSelf
}) {}

/** What presenting a code came to. */
export type CodeOutcome =
  /** The code was right: the token is used up. */
  | { readonly _tag: "Used"; readonly token: OneTimeToken }
  /** A live token, but another code: counted; at `OneTimeToken.maxFailedAttempts` it ends. */
  | { readonly _tag: "Wrong" }
  /** No live token of these purposes: never sent, used, expired or worn out by wrong codes. */
  | { readonly _tag: "None" }

/**
 * The auth service's one-time tokens (`OneTimeToken`), stored as digests. A token is live until
 * it expires, is used, is replaced or has met `maxFailedAttempts` wrong codes. Using one is a
 * once-only transition: of concurrent presentations of one token exactly one uses it.
 */
export class OneTimeTokenStore extends Context.Tag("latchkey/auth/OneTimeTokenStore")<
  OneTimeTokenStore,
  {
    /**
     * Stores a token, ending the user's live token of the same purpose (a new mail replaces
     * the last one's link and code) — unless that one was issued after `notAfter` (the spacing
     * between two mails), in which case nothing changes. Atomic: of concurrent issues within
     * the spacing one wins. Joins the transaction it runs in (`Transactions.run`).
     */
    readonly issue: (token: OneTimeToken, notAfter: Option.Option<Date>) => Effect.Effect<void, IssuedTooSoon>
    /** Uses up the live token of one of `purposes` whose link digest this is; none when there is none. */
    readonly useLink: (
      linkHash: SecretHash,
      purposes: ReadonlyArray<Purpose>,
      now: Date
    ) => Effect.Effect<Option.Option<OneTimeToken>>
    /** Presents a code (its digest, `codeSubject`) for the user's live token of one of `purposes`. */
    readonly useCode: (
      userId: UserId,
      purposes: ReadonlyArray<Purpose>,
      codeHash: SecretHash,
      now: Date
    ) => Effect.Effect<CodeOutcome>
    /**
     * Ends every token of the user, live or not (a password change: what was mailed or texted
     * before it stops working). Joins the transaction it runs in (`Transactions.run`).
     */
    readonly endAllOf: (userId: UserId) => Effect.Effect<void>
  }
>() {}
