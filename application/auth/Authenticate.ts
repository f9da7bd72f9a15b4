import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AccessTokenClaims from "../../domain/auth/AccessTokenClaims.js"
import * as Session from "../../domain/auth/Session.js"
import * as Ban from "../../domain/Ban.js"
import { UserId } from "../../domain/Ids.js"
import type { User } from "../../domain/User.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { AccessTokens } from "./ports/AccessTokens.js"
import { SessionStore } from "./ports/SessionStore.js"
import { UserRepository } from "./ports/UserRepository.js"

/** A signed-in user, as an access token names them: the user and session as they stand now. */
export interface SignedIn {
  readonly claims: AccessTokenClaims.VerifiedClaims
  readonly user: User
  /** None for a token without `session_id`. */
  readonly session: Option.Option<Session.Session>
}

const isUserId = Schema.is(UserId)
const isSessionId = Schema.is(Session.SessionId)
const nilUuid = "00000000-0000-0000-0000-000000000000"

const verified = (token: string) =>
  Effect.flatMap(AccessTokens, (tokens) => tokens.verify(token)).pipe(
    Effect.mapError((bad) => AuthError.badJwt(bad.message))
  )

/**
 * The session a token names, which must still be live: a logout ends its access tokens here
 * as in Supabase Auth, which deletes the session.
 */
const liveSession = (claims: AccessTokenClaims.VerifiedClaims) =>
  Effect.gen(function* () {
    const id = claims.sessionId
    if (id === undefined || id === "" || id === nilUuid) return Option.none<Session.Session>()
    if (!isSessionId(id)) return yield* AuthError.badJwt("invalid claim: session_id claim must be a UUID")
    const session = yield* (yield* SessionStore).findById(id)
    if (Option.isNone(session) || Option.isSome(session.value.revokedAt))
      return yield* AuthError.sessionNotFound()
    return session
  })

/**
 * A bearer token of a user (GET/PUT /user, /logout): verified, its `sub` an existing user that
 * is not banned, its session live. Supabase Auth's checks, in its order and words.
 */
export const user = Telemetry.fn("Authenticate.user")((token: string) =>
  Effect.gen(function* () {
    const { claims } = yield* verified(token)
    if (claims.sub === undefined || claims.sub === "")
      return yield* AuthError.badJwt("invalid claim: missing sub claim")
    if (!isUserId(claims.sub)) return yield* AuthError.subClaimNotUuid()
    const found = yield* (yield* UserRepository).findById(claims.sub)
    if (Option.isNone(found)) return yield* AuthError.userFromJwtNotFound()
    const session = yield* liveSession(claims)
    const now = new Date(yield* Clock.currentTimeMillis)
    if (Ban.isBanned(found.value.bannedUntil, now)) {
      return yield* AuthError.userBanned()
    }
    yield* Telemetry.annotate("user.id", found.value.id)
    return { claims, user: found.value, session } satisfies SignedIn
  })
)

/**
 * A bearer token for the admin API: its `role` one of `JWT_ADMIN_ROLES` (the service-role key
 * has no `sub` and no session), and, when it names a session, that session still live.
 */
export const admin = Telemetry.fn("Authenticate.admin")((token: string) =>
  Effect.gen(function* () {
    const { claims } = yield* verified(token)
    const settings = yield* AuthSettings
    if (!settings.adminRoles.includes(claims.role)) return yield* AuthError.notAdmin()
    yield* liveSession(claims)
    return claims
  })
)
