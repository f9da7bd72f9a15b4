import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import { type RefreshRequest, refresh } from "../../../application/oauth/Refresh.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

/** `"ok"`, or `"<code>: <description>"` as the token endpoint would answer. */
const answerOf = <A, R>(
  effect: Effect.Effect<A, { readonly code: string; readonly description: string }, R>
) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.isLeft(result) ? `${result.left.code}: ${result.left.description}` : "ok"
  )

/** A public client logged in once: the client, and the request that refreshes its grant. */
const loggedIn = Effect.gen(function* () {
  const client = yield* Harness.publicClient
  const tokens = yield* Harness.publicLogin(client.id)
  const request: RefreshRequest = {
    refreshToken: Option.map(tokens.refreshToken, Redacted.value),
    scope: Option.none()
  }
  return { client, tokens, request }
})

const active = (token: Redacted.Redacted<string>) =>
  Effect.map(introspect(Redacted.value(token), Option.none()), (info) => info.active)

describe("Refresh (POST /token, refresh_token), on memory adapters", () => {
  it.effect("rotates: a new access token for 7 days and a new refresh token, on the grant's scope", () =>
    Effect.gen(function* () {
      const { client, tokens, request } = yield* loggedIn
      const refreshed = yield* refresh(client, request)
      expect(Redacted.value(refreshed.accessToken)).toMatch(/^lka_/)
      expect(Redacted.value(Option.getOrThrow(refreshed.refreshToken))).toMatch(/^lkr_/)
      expect(Option.map(refreshed.refreshToken, Redacted.value)).not.toEqual(request.refreshToken)
      expect(refreshed.expiresIn).toBe(7 * 24 * 3600)
      expect(refreshed.scope).toEqual(Option.some("openid email"))
      expect(yield* active(refreshed.accessToken)).toBe(true)
      expect(yield* active(Option.getOrThrow(refreshed.refreshToken))).toBe(true)
      // The token presented is spent; the access token issued beside it lives on.
      expect(yield* active(Option.getOrThrow(tokens.refreshToken))).toBe(false)
      expect(yield* active(tokens.accessToken)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a used token replayed is refused and revokes every token of the grant", () =>
    Effect.gen(function* () {
      const { client, tokens, request } = yield* loggedIn
      const refreshed = yield* refresh(client, request)
      expect(yield* answerOf(refresh(client, request))).toBe(
        "invalid_grant: refresh token was already used; every token of this grant is now revoked"
      )
      expect(yield* active(tokens.accessToken)).toBe(false)
      expect(yield* active(refreshed.accessToken)).toBe(false)
      expect(
        yield* answerOf(
          refresh(client, { ...request, refreshToken: Option.map(refreshed.refreshToken, Redacted.value) })
        )
      ).toBe("invalid_grant: refresh token has been revoked")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("may narrow the scope; a scope beyond the grant is refused without spending the token", () =>
    Effect.gen(function* () {
      const { client, request } = yield* loggedIn
      expect(
        yield* answerOf(refresh(client, { ...request, scope: Option.some("openid email profile") }))
      ).toBe("invalid_scope: scope exceeds the original grant")
      expect(yield* answerOf(refresh(client, { ...request, scope: Option.some("email") }))).toBe("ok")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a resource must be the grant's own; another is refused without spending the token", () =>
    Effect.gen(function* () {
      const { client, request } = yield* loggedIn
      expect(
        yield* answerOf(refresh(client, { ...request, resource: Option.some("https://other.example/") }))
      ).toBe("invalid_target: resource is not the one granted")
      expect(
        yield* answerOf(refresh(client, { ...request, resource: Option.some("https://api.example.com") }))
      ).toBe("ok")

      // A grant that named no resource cannot be restricted at a refresh: the rotation carries
      // the grant's audience, so the token would be for more than was asked.
      const open = yield* Harness.loginFlow(client.id, { resource: null })
      const tokens = yield* exchangeCode(client, {
        code: Option.fromNullable(open.searchParams.get("code")),
        redirectUri: Option.some(Harness.redirectUri),
        codeVerifier: Option.some(Harness.verifier)
      })
      const openRequest = { ...request, refreshToken: Option.map(tokens.refreshToken, Redacted.value) }
      expect(
        yield* answerOf(refresh(client, { ...openRequest, resource: Option.some("https://api.example.com") }))
      ).toBe("invalid_target: the grant names no resource")
      expect(yield* answerOf(refresh(client, openRequest))).toBe("ok")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("refuses a missing, unknown, revoked, expired or another client's token", () =>
    Effect.gen(function* () {
      const { client, tokens, request } = yield* loggedIn
      expect(yield* answerOf(refresh(client, { ...request, refreshToken: Option.none() }))).toBe(
        "invalid_request: refresh_token is required"
      )
      expect(yield* answerOf(refresh(client, { ...request, refreshToken: Option.some("lkr_unknown") }))).toBe(
        "invalid_grant: unknown refresh token"
      )

      const other = yield* authenticate({
        clientId: Option.some((yield* Harness.publicClient).id),
        secret: Option.none(),
        assertion: Option.none()
      })
      expect(yield* answerOf(refresh(other, request))).toBe(
        "invalid_grant: refresh token was issued to another client"
      )

      const second = yield* loggedIn
      expect(
        yield* revoke(
          second.client,
          Redacted.value(Option.getOrThrow(second.tokens.refreshToken)),
          Option.none()
        )
      ).toBe(true)
      expect(yield* answerOf(refresh(second.client, second.request))).toBe(
        "invalid_grant: refresh token has been revoked"
      )

      yield* TestClock.adjust(Duration.days(30))
      expect(yield* answerOf(refresh(client, request))).toBe("invalid_grant: refresh token has expired")
      expect(yield* active(Option.getOrThrow(tokens.refreshToken))).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )
})
