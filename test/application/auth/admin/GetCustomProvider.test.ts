import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import { getCustomProvider } from "../../../../application/auth/admin/GetCustomProvider.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import { describedFailureOf } from "../support/Failure.js"
import { disabled, services } from "../support/ProviderDirectory.js"

const oidc = CustomProviderFixtures.oidcParams

describe("GetCustomProvider (admin), on the memory store", () => {
  it.effect("finds a provider by its identifier; an unknown one is not found", () =>
    Effect.gen(function* () {
      yield* createCustomProvider(oidc("custom:found"))
      expect((yield* getCustomProvider("custom:found")).identifier).toBe("custom:found")
      expect(yield* describedFailureOf(getCustomProvider("custom:none"))).toBe(
        "custom_provider_not_found: Custom OAuth provider not found"
      )
    }).pipe(Effect.provide(services().layer))
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off answers feature_disabled", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(getCustomProvider("custom:off"))).toBe(
        "feature_disabled: Custom OAuth providers are disabled"
      )
    }).pipe(Effect.provide(disabled()))
  )
})
