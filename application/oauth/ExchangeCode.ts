import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { FamilyId } from "../../domain/Ids.js"
import * as AccessToken from "../../domain/oauth/AccessToken.js"
import * as AuthorizationCode from "../../domain/oauth/AuthorizationCode.js"
import type { Client } from "../../domain/oauth/Client.js"
import * as ClientRules from "../../domain/oauth/Client.js"
import { oauthPolicy } from "../../domain/oauth/RefreshPolicy.js"
import * as ResourceIndicator from "../../domain/oauth/ResourceIndicator.js"
import * as Pkce from "../../domain/Pkce.js"
import * as RefreshTokenFamily from "../../domain/RefreshTokenFamily.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { invalidGrant, invalidRequest, OAuthError } from "./OAuthError.js"
import * as OAuthMetrics from "./OAuthMetrics.js"
import { AuthorizationCodeStore } from "./ports/AuthorizationCodeStore.js"
import { TokenStore } from "./ports/TokenStore.js"
import { accessTokenSeconds, type TokenResponse } from "./TokenResponse.js"

export interface ExchangeCodeRequest {
  readonly code: Option.Option<string>
  readonly redirectUri: Option.Option<string>
  readonly codeVerifier: Option.Option<string>
  /** RFC 8707 §2.2: the resource the tokens are for; the grant's when absent. */
  readonly resource?: Option.Option<string>
}

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.5). The code is consumed before
 * anything else is checked, so a wrong verifier or redirect URI burns it; a second redemption
 * revokes everything the first one issued (RFC 6749 §4.1.2).
 */
export const exchangeCode = Telemetry.fn("ExchangeCode.exchangeCode")(
  (client: Client, request: ExchangeCodeRequest) =>
    Effect.gen(function* () {
      if (Option.isNone(request.code)) return yield* invalidRequest("code is required")
      const now = new Date(yield* Clock.currentTimeMillis)
      const secrets = yield* Secrets
      const codeHash = yield* secrets.hash(Redacted.make(request.code.value))
      const codes = yield* AuthorizationCodeStore
      const consumed = yield* codes.consume(codeHash, now)
      if (Option.isNone(consumed)) return yield* invalidGrant("unknown authorization code")
      const { code, wasConsumed } = consumed.value
      const checked = AuthorizationCode.check(
        code,
        { clientId: client.id, redirectUri: request.redirectUri, wasConsumed },
        now
      )
      if (Either.isLeft(checked)) {
        if (checked.left.reason === "already_used") {
          yield* Metric.increment(OAuthMetrics.codeReplayed)
          const revoked = yield* Effect.flatMap(TokenStore, (tokens) => tokens.revokeGrant(code.grantId, now))
          yield* Effect.logWarning("authorization code replayed; grant revoked").pipe(
            Effect.annotateLogs({ "client.id": client.id, "grant.id": code.grantId, revoked })
          )
        }
        return yield* checked.left.reason === "redirect_uri_missing"
          ? invalidRequest(checked.left.message)
          : invalidGrant(checked.left.message)
      }
      if (Option.isSome(code.codeChallenge)) {
        if (Option.isNone(request.codeVerifier)) return yield* invalidGrant("code_verifier is required")
        yield* Pkce.verify(request.codeVerifier.value, code.codeChallenge.value).pipe(
          Effect.mapError((error) => invalidGrant(error.message))
        )
      } else if (Option.isSome(request.codeVerifier)) {
        // RFC 9700 §2.1.1: a verifier for a request that had no challenge signals an injected code.
        return yield* invalidGrant("code_verifier given, but the authorization request had no code_challenge")
      }

      const resource = ResourceIndicator.atExchange(code.resource, request.resource ?? Option.none())
      if (Either.isLeft(resource))
        return yield* new OAuthError({ code: "invalid_target", description: resource.left })

      const accessToken = yield* secrets.token("access")
      const access = new AccessToken.AccessToken({
        hash: yield* secrets.hash(accessToken),
        userId: code.userId,
        clientId: client.id,
        grantId: Option.some(code.grantId),
        familyId: Option.none(),
        scope: code.scope,
        resource: resource.right,
        issuedAt: now,
        expiresAt: AccessToken.expiryFor(now),
        revokedAt: Option.none()
      })
      if (!ClientRules.receivesRefreshTokens(client)) {
        yield* Effect.flatMap(TokenStore, (tokens) => tokens.issue({ access, refresh: Option.none() }))
        yield* Metric.increment(OAuthMetrics.codeExchanged)
        return { accessToken, expiresIn: accessTokenSeconds, refreshToken: Option.none(), scope: code.scope }
      }
      const refreshToken = yield* secrets.token("refresh")
      const family = RefreshTokenFamily.start(
        {
          id: FamilyId.make(yield* secrets.uuid),
          userId: code.userId,
          clientId: Option.some(client.id),
          grantId: Option.some(code.grantId),
          scope: code.scope,
          resource: resource.right
        },
        oauthPolicy,
        now
      )
      const refreshHash = yield* secrets.hash(refreshToken)
      yield* Effect.flatMap(TokenStore, (tokens) =>
        tokens.issue({
          // The same token with its family: validated once, above.
          access: new AccessToken.AccessToken({ ...access, familyId: Option.some(family.id) }, true),
          refresh: Option.some({ family, tokenHash: refreshHash })
        })
      )
      yield* Metric.increment(OAuthMetrics.codeExchanged)
      return {
        accessToken,
        expiresIn: accessTokenSeconds,
        refreshToken: Option.some(refreshToken),
        scope: code.scope
      } satisfies TokenResponse
    }),
  (client) => ({ "client.id": client.id })
)
