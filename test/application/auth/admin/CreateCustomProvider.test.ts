import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import { deleteCustomProvider } from "../../../../application/auth/admin/DeleteCustomProvider.js"
import { listCustomProviders } from "../../../../application/auth/admin/ListCustomProviders.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import { describedFailureOf } from "../support/Failure.js"
import { disabled, services } from "../support/ProviderDirectory.js"

const oidc = CustomProviderFixtures.oidcParams

describe("CreateCustomProvider (admin), on the memory store", () => {
  const { endpoints, layer } = services({ customProviders: { enabled: true, quota: Option.some(2) } })

  it.effect("creation: discovery at the issuer's well-known address, openid first, the quota kept", () =>
    Effect.gen(function* () {
      const created = yield* createCustomProvider(oidc("custom:one", { scopes: ["email"] }))
      expect(created.scopes).toEqual(["openid", "email"])
      expect(Redacted.value(created.clientSecret)).toBe("secret")
      expect(Option.map(created.discovery, (document) => document.token_endpoint)).toEqual(
        Option.some("https://id.acme.example/token")
      )
      expect(endpoints.discovered).toEqual(["https://id.acme.example/.well-known/openid-configuration"])
      expect(yield* describedFailureOf(createCustomProvider(oidc("custom:one")))).toBe(
        "conflict: A custom OAuth provider with this identifier already exists"
      )
      expect(
        yield* describedFailureOf(
          createCustomProvider(oidc("custom:four", { issuer: "https://internal.example" }))
        )
      ).toBe("validation_failed: URL cannot be used")
      expect(yield* describedFailureOf(createCustomProvider(oidc("custom:two")))).toBe("ok")
      expect(yield* describedFailureOf(createCustomProvider(oidc("custom:three")))).toBe(
        "over_custom_provider_quota: Maximum number of custom OAuth/OIDC providers reached"
      )
      // The quota is counted before the URLs are checked or the provider asked.
      const asked = endpoints.discovered.length
      expect(
        yield* describedFailureOf(
          createCustomProvider(oidc("custom:three", { issuer: "https://internal.example" }))
        )
      ).toBe("over_custom_provider_quota: Maximum number of custom OAuth/OIDC providers reached")
      expect(endpoints.discovered).toHaveLength(asked)
      expect((yield* listCustomProviders("")).map((provider) => provider.identifier).sort()).toEqual([
        "custom:one",
        "custom:two"
      ])
      expect(yield* listCustomProviders("oauth2")).toEqual([])

      // Deleting frees a place under the quota.
      yield* deleteCustomProvider("custom:two")
      expect(yield* describedFailureOf(createCustomProvider(oidc("custom:three")))).toBe("ok")
      expect(yield* describedFailureOf(deleteCustomProvider("custom:two"))).toBe(
        "custom_provider_not_found: Custom OAuth provider not found"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off answers feature_disabled", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(createCustomProvider(oidc("custom:off")))).toBe(
        "feature_disabled: Custom OAuth providers are disabled"
      )
    }).pipe(Effect.provide(disabled()))
  )
})
