import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Factor from "../../domain/auth/Factor.js"
import * as Session from "../../domain/auth/Session.js"
import * as Ban from "../../domain/Ban.js"
import type { SecretHash } from "../../domain/Ids.js"
import { type SealedSecret, Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import { type Rotation, SessionStore, type WithAccount } from "./ports/SessionStore.js"
import { Transactions } from "./ports/Transactions.js"

/** No refresh token has this digest: `refresh_token_not_found`. */
export class RefreshTokenNotFound extends Schema.TaggedError<RefreshTokenNotFound>()(
  "RefreshTokenNotFound",
  {}
) {}

/**
 * A retired refresh token came back outside the reuse interval: `refresh_token_already_used`.
 * With reuse detection the session has been ended by this presentation or an earlier one;
 * without it nothing was ended.
 */
export class RefreshTokenAlreadyUsed extends Schema.TaggedError<RefreshTokenAlreadyUsed>()(
  "RefreshTokenAlreadyUsed",
  { sessionId: Session.SessionId, sessionRevoked: Schema.Boolean }
) {}

/** The token's session has ended (logout, or a reuse detected earlier). */
export class SessionRevoked extends Schema.TaggedError<SessionRevoked>()("SessionRevoked", {
  sessionId: Session.SessionId
}) {}

/** The token's session is past one of its limits (`Session.validity`); nothing was written. */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()("SessionExpired", {
  sessionId: Session.SessionId,
  validity: Session.Expiry
}) {}

export type Refusal = RefreshTokenNotFound | RefreshTokenAlreadyUsed | SessionRevoked | SessionExpired

/** A refresh token presented, with the child minted for it should it rotate. */
export interface Presentation {
  /** The digest of the presented refresh token. */
  readonly presented: SecretHash
  /** The child the caller minted: its digest, and its plaintext sealed under the presented token. */
  readonly child: { readonly hash: SecretHash; readonly sealed: SealedSecret }
  readonly policy: Session.RefreshPolicy
  readonly limits: Session.Limits
  readonly now: Date
}

/** Each outcome carries the session with its user and their identities, read with it. */
export type Refreshed =
  /** The presented token was the live one: the caller's child is now live. */
  | ({ readonly _tag: "Rotated" } & WithAccount)
  /**
   * The presented token is the live one's parent, inside the reuse interval: the live child,
   * sealed under the presented token, for the caller to open and hand out again.
   */
  | ({ readonly _tag: "Reissued"; readonly child: SealedSecret } & WithAccount)

/**
 * Anything the shared rotation did not rotate, or any token while a limit needs the user's
 * other sessions: the session's limits checked (`Session.validity`, as Supabase Auth checks
 * them before anything else), then the token decided by `Session.present` on the session as it
 * stands, under its lock, and carried out. The unit returns the outcome rather than failing
 * with it, so that ending the session on a reuse commits before the caller hears of it.
 */
const presentLocked = (request: Presentation, rotation: Rotation) =>
  Effect.gen(function* () {
    const sessions = yield* SessionStore
    const found = yield* sessions.lockPresented(request.presented)
    if (Option.isNone(found)) return yield* new RefreshTokenNotFound()
    const { account, generation, sealedChild, session } = found.value
    const sessionId = session.id
    if (Option.isNone(session.revokedAt)) {
      const highest = Factor.highestPossibleAal(
        Option.match(account, { onNone: () => [], onSome: ({ factors }) => factors })
      )
      const validity = Session.validity(request.limits, session, highest, request.now)
      if (validity !== "valid") return yield* new SessionExpired({ sessionId, validity })
      if (request.limits.singlePerUser) {
        // Only the sessions used after this one can supersede it: a user with many sessions
        // does not have them all read at every refresh.
        const others = yield* sessions.liveOfUser(session.userId, Option.some(Session.lastUsed(session)))
        if (Session.isSuperseded(request.limits, session, others, highest, request.now)) {
          return yield* new SessionExpired({ sessionId, validity: "superseded" })
        }
      }
    }
    const outcome = Session.present(request.policy, session, generation, request.now)
    switch (outcome._tag) {
      case "Rotate": {
        // The live token came in after its shared rotation missed it; under the lock it rotates.
        const rotated = yield* sessions.rotate(rotation)
        if (Option.isNone(rotated))
          return yield* Effect.dieMessage("a live token did not rotate under its lock")
        return { _tag: "Rotated", ...rotated.value } satisfies Refreshed
      }
      case "Reissue":
        if (Option.isNone(sealedChild)) {
          // Rotated while no reuse interval was configured: there is nothing to hand out.
          return yield* new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false })
        }
        return { _tag: "Reissued", session, account, child: sealedChild.value } satisfies Refreshed
      case "ReuseDetected":
        yield* sessions.revoke(sessionId, request.now)
        return yield* new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: true })
      case "AlreadyUsed":
        return yield* new RefreshTokenAlreadyUsed({ sessionId, sessionRevoked: false })
      case "Ended":
        return yield* new SessionRevoked({ sessionId })
    }
  }).pipe(
    Effect.either,
    (unit) => Effect.flatMap(Transactions, (transactions) => transactions.run(unit)),
    Effect.flatten
  )

/**
 * A refresh token presented: the live one of a session within its own limits rotates into the
 * caller's child in one shared statement (the common case, `SessionStore.rotate` matches
 * exactly `Session.present`'s `Rotate` on a session that `Session.meets` the cutoffs); any other
 * is decided under its session's lock, and so is every token while a limit needs the user's
 * other sessions (one per user, `Session.decidedByCutoffs`). Of concurrent presentations of one
 * live token exactly one rotates; the others are the parent's, so inside the reuse interval each
 * is reissued the same child, and outside it each finds the reuse.
 */
export const present = (
  request: Presentation
): Effect.Effect<Refreshed, Refusal, SessionStore | Transactions> =>
  Effect.gen(function* () {
    const rotation: Rotation = {
      presented: request.presented,
      child: request.child.hash,
      sealed: Session.keepsChild(request.policy) ? Option.some(request.child.sealed) : Option.none(),
      cutoffs: Session.cutoffs(request.limits, request.now),
      now: request.now
    }
    if (!Session.decidedByCutoffs(request.limits)) return yield* presentLocked(request, rotation)
    const rotated = yield* Effect.flatMap(SessionStore, (sessions) => sessions.rotate(rotation))
    if (Option.isSome(rotated)) return { _tag: "Rotated", ...rotated.value } satisfies Refreshed
    return yield* presentLocked(request, rotation)
  })

/** How the wire words each limit: a timebox as a session's lifetime, as Supabase Auth does. */
const sessionEnd: Readonly<Record<Session.Expiry, AuthError.SessionEnd>> = {
  past_timebox: "lifetime",
  inactive: "inactivity",
  low_aal: "low_aal",
  superseded: "newer_login"
}

/**
 * `POST /token?grant_type=refresh_token`: the presented token rotates (its child minted here,
 * sealed under it for the reuse interval), or, presented again inside the interval, yields the
 * child it already has; either way a fresh access token. Refusals use Supabase Auth's codes: a
 * token never issued or of a session that ended is `refresh_token_not_found` (Supabase Auth
 * deletes ended sessions), a reuse is `refresh_token_already_used`.
 */
export const refreshSession = Telemetry.fn("RefreshSession.refreshSession")((refreshToken: string) =>
  Effect.gen(function* () {
    if (refreshToken === "") return yield* new AuthError.MalformedRefreshToken()
    const settings = yield* AuthSettings
    const secrets = yield* Secrets
    const now = new Date(yield* Clock.currentTimeMillis)
    const presented = Redacted.make(refreshToken)
    const child = yield* secrets.token("refresh")
    const refreshed = yield* present({
      presented: yield* secrets.hash(presented),
      child: { hash: yield* secrets.hash(child), sealed: yield* secrets.seal(presented, child) },
      policy: settings.refreshPolicy,
      limits: settings.sessionLimits,
      now
    }).pipe(
      Effect.catchTags({
        RefreshTokenNotFound: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
        RefreshTokenAlreadyUsed: () => Effect.fail(new AuthError.RefreshTokenReused()),
        SessionRevoked: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
        SessionExpired: ({ validity }) =>
          Effect.fail(new AuthError.RefreshSessionEnded({ end: sessionEnd[validity] }))
      })
    )
    const handedOut =
      refreshed._tag === "Rotated"
        ? child
        : yield* Effect.flatMap(secrets.unseal(presented, refreshed.child), (opened) =>
            Option.match(opened, {
              // Only the presented token opens its child; anything else is a token we never made.
              onNone: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
              onSome: Effect.succeed
            })
          )
    const session = refreshed.session
    yield* Telemetry.annotate("session.id", session.id)
    // The user as the rotation (or the locked read) found them, in the same statement.
    const account = refreshed.account
    if (Option.isNone(account)) return yield* new AuthError.RefreshTokenUnknown()
    const { factors, identities, user } = account.value
    if (Ban.isBanned(user.bannedUntil, now)) {
      return yield* new AuthError.RefreshTokenUserBanned()
    }
    const access = yield* IssueSession.accessTokenFor(user, factors, session, now)
    return {
      access,
      refreshToken: handedOut,
      user,
      identities,
      factors,
      session
    } satisfies IssueSession.Grant
  })
)
