import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import { listCustomProviders } from "../../../../application/auth/admin/ListCustomProviders.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import { describedFailureOf } from "../support/Failure.js"
import { disabled, services } from "../support/ProviderDirectory.js"

const oidc = CustomProviderFixtures.oidcParams

describe("ListCustomProviders (admin), on the memory store", () => {
  it.effect("lists every provider, or those of one type", () =>
    Effect.gen(function* () {
      expect(yield* listCustomProviders("")).toEqual([])
      yield* createCustomProvider(oidc("custom:a"))
      yield* createCustomProvider(oidc("custom:b"))
      expect((yield* listCustomProviders("")).map((provider) => provider.identifier).sort()).toEqual([
        "custom:a",
        "custom:b"
      ])
      expect((yield* listCustomProviders("oidc")).length).toBe(2)
      expect(yield* listCustomProviders("oauth2")).toEqual([])
    }).pipe(Effect.provide(services().layer))
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off answers feature_disabled", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(listCustomProviders(""))).toBe(
        "feature_disabled: Custom OAuth providers are disabled"
      )
    }).pipe(Effect.provide(disabled()))
  )
})
