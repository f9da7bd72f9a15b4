import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { FlowStateId } from "../../domain/auth/FlowState.js"
import { codeSubject, OneTimeToken, OneTimeTokenId, type Purpose } from "../../domain/auth/OneTimeToken.js"
import * as Time from "../../domain/Time.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import { OneTimeTokenStore } from "./ports/OneTimeTokenStore.js"

/**
 * A user's one-time tokens as the mails (SendVerification) and the texts (SendSms) carry them:
 * a link token and a code, kept only as digests, one live token per user and purpose.
 */

/** A one-time token's two forms in the clear, and what it is for, to be stored as digests. */
export interface Unstored {
  readonly user: User
  readonly purpose: Purpose
  readonly to: string
  readonly link: Redacted.Redacted<string>
  readonly code: Redacted.Redacted<string>
  readonly lifetime: Duration.Duration
  readonly flowStateId: Option.Option<FlowStateId>
  readonly now: Date
}

/** The token as digests, for the user's mail, text or an answer to carry in the clear. */
export const digestsOf = (token: Unstored) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const { user, now } = token
    return new OneTimeToken(
      {
        id: OneTimeTokenId.make(yield* secrets.uuid),
        userId: user.id,
        purpose: token.purpose,
        sentTo: token.to,
        linkHash: yield* secrets.hash(token.link),
        codeHash: yield* secrets.hash(Redacted.make(codeSubject(user.id, Redacted.value(token.code)))),
        failedAttempts: 0,
        createdAt: now,
        expiresAt: Time.plus(now, Duration.toMillis(token.lifetime)),
        usedAt: Option.none(),
        flowStateId: token.flowStateId
      },
      // Made of values already of their types: the class need not check them again.
      true
    )
  })

/** The latest creation time of the user's last token of the purpose that a new one may replace. */
export const notAfterOf = (spacing: Option.Option<Duration.Duration>, now: Date) =>
  Option.map(spacing, (least) => Time.minus(now, Duration.toMillis(least)))

/**
 * Stores a token as digests, replacing the user's last one of the purpose; `IssuedTooSoon`,
 * writing nothing, when that one is more recent than `spacing`. Joins the caller's transaction.
 */
export const store = (token: Unstored, spacing: Option.Option<Duration.Duration>) =>
  Effect.gen(function* () {
    const tokens = yield* OneTimeTokenStore
    yield* tokens.issue(yield* digestsOf(token), notAfterOf(spacing, token.now))
  })

/**
 * Presents a code typed by `user` for their live token of one of `purposes`: whether it was
 * right (the token is then used up). A wrong one counts towards the token's end.
 */
export const useCode = (user: User, purposes: ReadonlyArray<Purpose>, code: string, now: Date) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const codeHash = yield* secrets.hash(Redacted.make(codeSubject(user.id, code)))
    const outcome = yield* Effect.flatMap(OneTimeTokenStore, (tokens) =>
      tokens.useCode(user.id, purposes, codeHash, now)
    )
    return outcome._tag === "Used"
  })
