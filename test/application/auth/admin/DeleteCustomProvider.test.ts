import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import { deleteCustomProvider } from "../../../../application/auth/admin/DeleteCustomProvider.js"
import { getCustomProvider } from "../../../../application/auth/admin/GetCustomProvider.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import { describedFailureOf } from "../support/Failure.js"
import { disabled, services } from "../support/ProviderDirectory.js"

const oidc = CustomProviderFixtures.oidcParams

describe("DeleteCustomProvider (admin), on the memory store", () => {
  it.effect("deletes a provider once; then it is not found", () =>
    Effect.gen(function* () {
      yield* createCustomProvider(oidc("custom:gone"))
      yield* deleteCustomProvider("custom:gone")
      const notFound = "custom_provider_not_found: Custom OAuth provider not found"
      expect(yield* describedFailureOf(getCustomProvider("custom:gone"))).toBe(notFound)
      expect(yield* describedFailureOf(deleteCustomProvider("custom:gone"))).toBe(notFound)
    }).pipe(Effect.provide(services().layer))
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off answers feature_disabled", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(deleteCustomProvider("custom:off"))).toBe(
        "feature_disabled: Custom OAuth providers are disabled"
      )
    }).pipe(Effect.provide(disabled()))
  )
})
