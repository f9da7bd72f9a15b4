import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { introspect } from "../../../application/oauth/Introspect.js"
import { revoke } from "../../../application/oauth/Revoke.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

describe("Revoke (POST /revoke), on memory adapters", () => {
  it.effect("revoking a refresh token revokes its family and access tokens; unknown tokens are fine", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(client.id)
      expect(yield* revoke(client, "lkr_unknown", Option.none())).toBe(false)
      expect(
        yield* revoke(client, Redacted.value(Option.getOrThrow(tokens.refreshToken)), Option.none())
      ).toBe(true)
      expect((yield* introspect(Redacted.value(tokens.accessToken), Option.none())).active).toBe(false)
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("another client cannot revoke a token", () =>
    Effect.gen(function* () {
      const owner = yield* Harness.publicClient
      const other = yield* Harness.publicClient
      const tokens = yield* Harness.publicLogin(owner.id)
      expect(yield* revoke(other, Redacted.value(tokens.accessToken), Option.none())).toBe(false)
      expect((yield* introspect(Redacted.value(tokens.accessToken), Option.none())).active).toBe(true)
    }).pipe(Effect.provide(Harness.layer))
  )
})
