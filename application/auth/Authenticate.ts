import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AccessTokenClaims from "../../domain/auth/AccessTokenClaims.js"
import * as Factor from "../../domain/auth/Factor.js"
import * as Session from "../../domain/auth/Session.js"
import * as Ban from "../../domain/Ban.js"
import type { Identity } from "../../domain/Identity.js"
import { UserId } from "../../domain/Ids.js"
import type { User } from "../../domain/User.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import { AccessTokens } from "./ports/AccessTokens.js"
import { UserRepository } from "./ports/UserRepository.js"

/** A signed-in user, as an access token names them: the user and session as they stand now. */
export interface SignedIn {
  readonly claims: AccessTokenClaims.VerifiedClaims
  readonly user: User
  /** The user's identities, oldest first, read with the user. */
  readonly identities: ReadonlyArray<Identity>
  /** None for a token without `session_id`. */
  readonly session: Option.Option<Session.Session>
  /** The user's factors, oldest first, read with the user. */
  readonly factors: ReadonlyArray<Factor.Factor>
}

const isUserId = Schema.is(UserId)
const isSessionId = Schema.is(Session.SessionId)
const nilUuid = "00000000-0000-0000-0000-000000000000"

/** A bearer token that does not verify fails with the domain's `BadJwt`, a reason as it is. */
const verified = (token: string) => Effect.flatMap(AccessTokens, (tokens) => tokens.verify(token))

/** What a token's `session_id` claim names: no session, one that cannot exist, or an id. */
type SessionClaim =
  | { readonly _tag: "None" }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Id"; readonly id: Session.SessionId }

const sessionClaim = (claims: AccessTokenClaims.VerifiedClaims): SessionClaim => {
  const id = claims.sessionId
  if (id === undefined || id === "" || id === nilUuid) return { _tag: "None" }
  return isSessionId(id) ? { _tag: "Id", id } : { _tag: "Invalid" }
}

/**
 * A session a token names must still be live: a logout ends its access tokens here as in
 * Supabase Auth, which deletes the session.
 */
const isLive = (session: Session.Session) => Option.isNone(session.revokedAt)

/**
 * The user a verified token names, with their identities and factors, and the session it names,
 * which must still be live: Supabase Auth's checks (`maybeLoadUserOrSession`), in its order and
 * words. One read (`findSignedIn`), shared with the requests arriving together (the Postgres
 * adapter batches it); the session claim is judged after the user is found, as Supabase Auth
 * reads them in that order.
 */
const signedInBy = (claims: AccessTokenClaims.VerifiedClaims) =>
  Effect.gen(function* () {
    const sub = claims.sub
    if (sub === undefined || sub === "") return yield* new AuthError.MissingSubClaim()
    if (!isUserId(sub)) return yield* new AuthError.SubClaimNotUuid()
    const claim = sessionClaim(claims)
    const found = yield* Effect.flatMap(UserRepository, (users) =>
      users.findSignedIn(sub, claim._tag === "Id" ? Option.some(claim.id) : Option.none())
    )
    if (Option.isNone(found)) return yield* new AuthError.UserFromJwtNotFound()
    const account = found.value
    if (claim._tag === "Invalid") return yield* new AuthError.MalformedSessionIdClaim()
    const session = claim._tag === "Id" ? Option.filter(account.session, isLive) : Option.none()
    if (claim._tag === "Id" && Option.isNone(session)) return yield* new AuthError.SessionFromJwtNotFound()
    return {
      claims,
      user: account.user,
      identities: account.identities,
      session,
      factors: account.factors
    } satisfies SignedIn
  })

/**
 * A bearer token of a user (GET/PUT /user, /logout): verified, naming an existing user who is
 * not banned and a live session (`signedInBy`).
 */
export const user = Telemetry.fn("Authenticate.user")((token: string) =>
  Effect.gen(function* () {
    const { claims } = yield* verified(token)
    const signedIn = yield* signedInBy(claims)
    const now = new Date(yield* Clock.currentTimeMillis)
    if (Ban.isBanned(signedIn.user.bannedUntil, now)) {
      return yield* new AuthError.UserIsBanned()
    }
    yield* Telemetry.annotate("user.id", signedIn.user.id)
    return signedIn
  })
)

/**
 * A bearer token for the admin API, checked in Supabase Auth's order (`requireAdminCredentials`):
 * when it names a session, its user and that session as for a user (`signedInBy`, banned or
 * not) and the session within its limits (`Session.validity`); then its `role` one of
 * `JWT_ADMIN_ROLES`. The service-role key names no session, and no user.
 */
export const admin = Telemetry.fn("Authenticate.admin")((token: string) =>
  Effect.gen(function* () {
    const { claims } = yield* verified(token)
    const settings = yield* AuthSettings
    if (sessionClaim(claims)._tag !== "None") {
      const { factors, session } = yield* signedInBy(claims)
      const now = new Date(yield* Clock.currentTimeMillis)
      const highest = Factor.highestPossibleAal(factors)
      if (
        Option.isSome(session) &&
        Session.validity(settings.sessionLimits, session.value, highest, now) !== "valid"
      ) {
        return yield* new AuthError.SessionNoLongerValid()
      }
    }
    if (!settings.adminRoles.includes(claims.role)) return yield* new AuthError.NotAdmin()
    return claims
  })
)
