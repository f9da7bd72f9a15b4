import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AccessToken from "../../domain/oauth/AccessToken.js"
import type { Client } from "../../domain/oauth/Client.js"
import { oauthPolicy } from "../../domain/oauth/RefreshPolicy.js"
import * as ResourceIndicator from "../../domain/oauth/ResourceIndicator.js"
import * as Scope from "../../domain/oauth/Scope.js"
import * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { invalidGrant, invalidRequest, OAuthError } from "./OAuthError.js"
import * as OAuthMetrics from "./OAuthMetrics.js"
import { TokenStore } from "./ports/TokenStore.js"
import { accessTokenSeconds, type TokenResponse } from "./TokenResponse.js"

export interface RefreshRequest {
  readonly refreshToken: Option.Option<string>
  readonly scope: Option.Option<string>
  /** RFC 8707 §2.2: the resource the tokens are for; none or the grant's own. */
  readonly resource?: Option.Option<string>
}

const refusal = (decision: RefreshTokenFamily.Decision): string =>
  RefreshTokenFamily.Decision.$match(decision, {
    Rotate: () => "refresh token rotated",
    Reissue: () => "refresh token was already used",
    ReuseDetected: () => "refresh token was already used; every token of this grant is now revoked",
    AlreadyUsed: () => "refresh token was already used",
    Expired: () => "refresh token has expired",
    Revoked: () => "refresh token has been revoked",
    WrongClient: () => "refresh token was issued to another client"
  })

/**
 * grant_type=refresh_token (RFC 6749 §6): one atomic rotation in storage; every refusal is
 * `invalid_grant`, and a replay also revokes the family (RFC 9700 §4.14.2).
 */
export const refresh = Telemetry.fn("Refresh.refresh")(
  (client: Client, request: RefreshRequest) =>
    Effect.gen(function* () {
      if (Option.isNone(request.refreshToken)) return yield* invalidRequest("refresh_token is required")
      const now = new Date(yield* Clock.currentTimeMillis)
      const secrets = yield* Secrets
      const [presented, child, access] = yield* Effect.all([
        secrets.hash(Redacted.make(request.refreshToken.value)),
        secrets.token("refresh"),
        secrets.token("access")
      ])
      const tokens = yield* TokenStore
      const resourceAsked = request.resource ?? Option.none()
      if (Option.isSome(request.scope) || Option.isSome(resourceAsked)) {
        // Checked before rotating, so a refused scope or resource does not cost the client its
        // token. Only requests that carry one pay for this extra read.
        const state = yield* tokens.findRefresh(presented)
        if (Option.isSome(state)) {
          const { family } = state.value
          const granted = Option.getOrElse(family.scope, () => "")
          if (Option.isSome(request.scope) && !Scope.isSubsetOf(request.scope.value, granted)) {
            return yield* new OAuthError({
              code: "invalid_scope",
              description: "scope exceeds the original grant"
            })
          }
          const resource = ResourceIndicator.atRefresh(family.resource, resourceAsked)
          if (Either.isLeft(resource)) {
            return yield* new OAuthError({ code: "invalid_target", description: resource.left })
          }
        }
      }
      const [childHash, accessHash] = yield* Effect.all([secrets.hash(child), secrets.hash(access)])
      const rotation = yield* tokens.rotate({
        presented,
        presenter: client.id,
        policy: oauthPolicy,
        childHash,
        accessHash,
        accessExpiresAt: AccessToken.expiryFor(now),
        now
      })
      if (rotation._tag === "UnknownToken") return yield* invalidGrant("unknown refresh token")
      const { decision, family } = rotation
      if (decision._tag !== "Rotate") {
        if (decision._tag === "ReuseDetected") {
          yield* Metric.increment(OAuthMetrics.refreshReplayed)
          yield* Effect.logWarning("refresh token replayed; family revoked").pipe(
            Effect.annotateLogs({ "client.id": client.id, "family.id": family.id })
          )
        }
        return yield* invalidGrant(refusal(decision))
      }
      yield* Metric.increment(OAuthMetrics.rotations)
      yield* Metric.increment(OAuthMetrics.refreshed)
      return {
        accessToken: access,
        expiresIn: accessTokenSeconds,
        refreshToken: Option.some(child),
        scope: family.scope
      } satisfies TokenResponse
    }),
  (client) => ({ "client.id": client.id })
)
