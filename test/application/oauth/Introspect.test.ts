import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { introspect } from "../../../application/oauth/Introspect.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const at = (duration: Duration.DurationInput) => new Date(Duration.toMillis(duration))

describe("Introspect (POST /introspect), on memory adapters", () => {
  it.effect("an active access token: its client, user, scope, resource, issuer and lifetime", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(Duration.hours(1))
      const client = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(client.id)
      const info = yield* introspect(Redacted.value(tokens.accessToken), Option.none())
      expect(info).toEqual({
        active: true,
        kind: "access",
        clientId: client.id,
        userId: expect.any(String),
        scope: Option.some("openid email"),
        resource: Option.some("https://api.example.com"),
        issuer: Harness.issuer,
        issuedAt: at(Duration.hours(1)),
        expiresAt: at(Duration.sum(Duration.hours(1), Duration.days(7)))
      })
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a live refresh token: its grant, expiring 30 days after its family was last used", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const first = yield* Harness.publicLogin(client.id)
      yield* TestClock.adjust(Duration.days(2))
      const second = yield* Harness.refreshWith(client.id, Option.getOrThrow(first.refreshToken))
      const access = yield* introspect(Redacted.value(second.accessToken), Option.none())
      const refresh = yield* introspect(Redacted.value(Option.getOrThrow(second.refreshToken)), Option.none())
      expect(refresh).toEqual({
        active: true,
        kind: "refresh",
        clientId: client.id,
        userId: expect.any(String),
        scope: Option.some("openid email"),
        resource: Option.some("https://api.example.com"),
        issuer: Harness.issuer,
        issuedAt: at(Duration.days(2)),
        expiresAt: at(Duration.days(32))
      })
      // The user the grant was made to, as its access tokens say.
      expect(refresh.active && refresh.userId).toBe(access.active && access.userId)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("the token's prefix names its kind, whatever the hint says", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(client.id)
      const refreshToken = Redacted.value(Option.getOrThrow(tokens.refreshToken))
      expect(yield* introspect(refreshToken, Option.some("access_token"))).toMatchObject({
        active: true,
        kind: "refresh"
      })
      expect(
        yield* introspect(Redacted.value(tokens.accessToken), Option.some("refresh_token"))
      ).toMatchObject({ active: true, kind: "access" })
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("reveals nothing of tokens that are unknown, of another kind, expired, rotated or revoked", () =>
    Effect.gen(function* () {
      const inactive = { active: false }
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      // An authorization code is a secret of ours, but no token a resource server is shown.
      expect(yield* introspect(back.searchParams.get("code") ?? "", Option.none())).toEqual(inactive)
      expect(yield* introspect("lka_unknown", Option.none())).toEqual(inactive)
      expect(yield* introspect("unprefixed", Option.some("refresh_token"))).toEqual(inactive)
      expect(yield* introspect("unprefixed", Option.none())).toEqual(inactive)

      const first = yield* Harness.publicLogin(client.id)
      const second = yield* Harness.refreshWith(client.id, Option.getOrThrow(first.refreshToken))
      expect(yield* introspect(Redacted.value(Option.getOrThrow(first.refreshToken)), Option.none())).toEqual(
        inactive
      )
      expect(
        yield* revoke(client, Redacted.value(Option.getOrThrow(second.refreshToken)), Option.none())
      ).toBe(true)
      expect(
        yield* introspect(Redacted.value(Option.getOrThrow(second.refreshToken)), Option.none())
      ).toEqual(inactive)

      const third = yield* Harness.publicLogin(client.id)
      yield* TestClock.adjust(Duration.days(7))
      expect(yield* introspect(Redacted.value(third.accessToken), Option.none())).toEqual(inactive)
      yield* TestClock.adjust(Duration.days(23))
      expect(yield* introspect(Redacted.value(Option.getOrThrow(third.refreshToken)), Option.none())).toEqual(
        inactive
      )
    }).pipe(Effect.provide(Harness.layer))
  )
})
