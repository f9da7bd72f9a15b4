import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ban from "../../domain/Ban.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { TokenMint } from "../ports/TokenMint.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { AuthSettings } from "./AuthSettings.js"
import * as IssueSession from "./IssueSession.js"
import { SessionStore } from "./ports/SessionStore.js"
import { TokenSealer } from "./ports/TokenSealer.js"
import { UserRepository } from "./ports/UserRepository.js"

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
    const hasher = yield* SecretHasher
    const mint = yield* TokenMint
    const sealer = yield* TokenSealer
    const sessions = yield* SessionStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const presented = Redacted.make(refreshToken)
    const child = yield* mint.token("refresh")
    const refreshed = yield* sessions
      .refresh({
        presented: yield* hasher.hash(presented),
        child: { hash: yield* hasher.hash(child), sealed: yield* sealer.seal(presented, child) },
        policy: settings.refreshPolicy,
        now
      })
      .pipe(
        Effect.catchTags({
          RefreshTokenNotFound: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
          RefreshTokenAlreadyUsed: () => Effect.fail(new AuthError.RefreshTokenReused()),
          SessionRevoked: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
          RefreshTokenExpired: () => Effect.fail(new AuthError.RefreshSessionEnded({ end: "lifetime" }))
        })
      )
    const handedOut =
      refreshed._tag === "Rotated"
        ? child
        : yield* Effect.flatMap(sealer.unseal(presented, refreshed.child), (opened) =>
            Option.match(opened, {
              // Only the presented token opens its child; anything else is a token we never made.
              onNone: () => Effect.fail(new AuthError.RefreshTokenUnknown()),
              onSome: Effect.succeed
            })
          )
    const session = refreshed.session
    yield* Telemetry.annotate("session.id", session.id)
    const account = yield* Effect.flatMap(UserRepository, (users) => users.findWithIdentities(session.userId))
    if (Option.isNone(account)) return yield* new AuthError.RefreshTokenUnknown()
    const { user, identities } = account.value
    if (Ban.isBanned(user.bannedUntil, now)) {
      return yield* new AuthError.RefreshTokenUserBanned()
    }
    const access = yield* IssueSession.accessTokenFor(user, session, now)
    return { access, refreshToken: handedOut, user, identities, session } satisfies IssueSession.Grant
  })
)
