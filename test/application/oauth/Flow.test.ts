import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { authenticate } from "../../../application/oauth/ClientAuthentication.js"
import { exchangeCode } from "../../../application/oauth/ExchangeCode.js"
import { introspect } from "../../../application/oauth/Introspect.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const codeOf = (url: URL) => Option.fromNullable(url.searchParams.get("code"))

describe("the public-client flow", () => {
  it.effect("authorize → upstream → callback → code → tokens → refresh → introspect → revoke", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const back = yield* Harness.loginFlow(client.id)
      expect(back.origin + back.pathname).toBe(Harness.redirectUri)
      expect(back.searchParams.get("state")).toBe("client-state")
      expect(back.searchParams.get("iss")).toBe(Harness.issuer)
      expect(back.searchParams.get("code")).toMatch(/^lkc_/)
      const authenticated = yield* authenticate({
        clientId: Option.some(client.id),
        secret: Option.none(),
        assertion: Option.none()
      })
      const tokens = yield* exchangeCode(authenticated, {
        code: codeOf(back),
        redirectUri: Option.some(Harness.redirectUri),
        codeVerifier: Option.some(Harness.verifier)
      })
      expect(Redacted.value(tokens.accessToken)).toMatch(/^lka_/)
      expect(tokens.scope).toEqual(Option.some("openid email"))
      const info = yield* introspect(Redacted.value(tokens.accessToken), Option.none())
      expect(info).toMatchObject({
        active: true,
        kind: "access",
        clientId: client.id,
        resource: Option.some("https://api.example.com")
      })

      const refreshed = yield* Harness.refreshWith(client.id, Option.getOrThrow(tokens.refreshToken))
      const replay = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(tokens.refreshToken))
      )
      expect(Either.isLeft(replay) && replay.left.code).toBe("invalid_grant")
      // The replay revoked the family: the rotated tokens are dead too.
      expect((yield* introspect(Redacted.value(refreshed.accessToken), Option.none())).active).toBe(false)
      const stale = yield* Effect.either(
        Harness.refreshWith(client.id, Option.getOrThrow(refreshed.refreshToken))
      )
      expect(Either.isLeft(stale)).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})
