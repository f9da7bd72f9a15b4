import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as AccessTokenClaims from "../../domain/auth/AccessTokenClaims.js"
import { type Factor, highestPossibleAal } from "../../domain/auth/Factor.js"
import * as Session from "../../domain/auth/Session.js"
import type { Identity } from "../../domain/Identity.js"
import type { IdentityId } from "../../domain/Ids.js"
import { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { JwtSettings } from "./JwtSettings.js"
import { AccessTokens } from "./ports/AccessTokens.js"
import { SessionStore, type WithAccount } from "./ports/SessionStore.js"
import { UserRepository } from "./ports/UserRepository.js"

/** Who is signing in from where, as the HTTP driver saw it; kept on the session. */
export interface Client {
  readonly userAgent: Option.Option<string>
  readonly ip: Option.Option<string>
}

/** How the user proved who they are: the `amr` method of the session's tokens. */
export type Method =
  | "password"
  | "anonymous"
  | "otp"
  | "magiclink"
  | "oauth"
  | "invite"
  | "recovery"
  | "passkey"
  /** A confirmation mail's PKCE code exchanged (Supabase Auth's `EmailSignup`). */
  | "email/signup"
  /** An address change's PKCE code exchanged. */
  | "email_change"

/** An access token with its lifetime, as the session response gives them. */
export interface AccessToken {
  readonly token: Redacted.Redacted<string>
  /** Seconds from now. */
  readonly expiresIn: number
  /** Unix seconds. */
  readonly expiresAt: number
}

/** What a sign-in (or a refresh) hands the client: Supabase Auth's session response. */
export interface Grant {
  readonly access: AccessToken
  readonly refreshToken: Redacted.Redacted<string>
  readonly user: User
  /** The user's sign-in methods, which the session response lists with the user. */
  readonly identities: ReadonlyArray<Identity>
  /** The user's factors, oldest first, which the session response lists with the user too. */
  readonly factors: ReadonlyArray<Factor>
  readonly session: Session.Session
}

const tokenAal = (aal: Session.Aal): AccessTokenClaims.Aal => (aal === "aal1" ? "aal1" : "aal2")

/**
 * A signed access token for `user` (with their `factors`) in `session`, issued at `now`; a
 * session below the user's highest level lives no longer than `SESSIONS_ALLOW_LOW_AAL` allows.
 */
export const accessTokenFor = (
  user: User,
  factors: ReadonlyArray<Factor>,
  session: Session.Session,
  now: Date
) =>
  Effect.gen(function* () {
    const settings = yield* JwtSettings
    const { sessionLimits } = yield* AuthSettings
    const tokens = yield* AccessTokens
    const lifetime = Session.accessLifetime(
      sessionLimits,
      session,
      highestPossibleAal(factors),
      now,
      settings.lifetime
    )
    const claims = AccessTokenClaims.issue({
      user,
      session: { sessionId: session.id, aal: tokenAal(session.aal), amr: session.amr },
      issuer: settings.issuer,
      now,
      lifetime
    })
    const token = yield* tokens.sign(claims)
    return {
      token,
      expiresIn: Math.floor(Duration.toSeconds(lifetime)),
      expiresAt: claims.exp
    } satisfies AccessToken
  })

/**
 * The token answer of a session a second factor raised (`SessionStore.raise`): an access token
 * over the account the raise read in its transaction, and the refresh token it stored. A user
 * deleted meanwhile is the session's absence, as at `/token`.
 */
export const grantOfRaised = (raised: WithAccount, refreshToken: Redacted.Redacted<string>, now: Date) =>
  Effect.gen(function* () {
    if (Option.isNone(raised.account)) return yield* new AuthError.SessionFromJwtNotFound()
    const { factors, identities, user } = raised.account.value
    const access = yield* accessTokenFor(user, factors, raised.session, now)
    return { access, refreshToken, user, identities, factors, session: raised.session } satisfies Grant
  })

/**
 * A new session for a user who just proved who they are: its first refresh token (stored as a
 * digest), the sign-in stamped on the user (and on the identity used, when there is one), and
 * an access token. The caller has checked that the user may sign in.
 */
export const issue = Telemetry.fn("IssueSession.issue")(
  (user: User, method: Method, client: Client, identity: Option.Option<IdentityId> = Option.none()) =>
    Effect.gen(function* () {
      const now = new Date(yield* Clock.currentTimeMillis)
      const secrets = yield* Secrets
      const sessions = yield* SessionStore
      const users = yield* UserRepository
      const refreshToken = yield* secrets.token("refresh")
      const session = Session.start(
        {
          id: Session.SessionId.make(yield* secrets.uuid),
          userId: user.id,
          aal: "aal1",
          amr: [new AccessTokenClaims.AmrEntry({ method, timestamp: Math.floor(now.getTime() / 1000) })],
          factorId: Option.none(),
          userAgent: client.userAgent,
          ip: client.ip,
          tag: Option.none()
        },
        now
      )
      yield* sessions.start(session, yield* secrets.hash(refreshToken))
      const { factors, identities } = yield* users
        .recordSignIn(user.id, identity, now)
        .pipe(Effect.catchTag("UserNotFound", () => Effect.fail(new AuthError.NoSuchUser())))
      const signedIn = new User({ ...user, lastSignInAt: Option.some(now) })
      const access = yield* accessTokenFor(signedIn, factors, session, now)
      yield* Telemetry.annotate("session.id", session.id)
      return { access, refreshToken, user: signedIn, identities, factors, session } satisfies Grant
    }),
  (user, method) => ({ "user.id": user.id, method })
)
