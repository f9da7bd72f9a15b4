import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import { createCustomProvider } from "../../../application/auth/admin/CreateCustomProvider.js"
import { deleteCustomProvider } from "../../../application/auth/admin/DeleteCustomProvider.js"
import { getCustomProvider } from "../../../application/auth/admin/GetCustomProvider.js"
import { listCustomProviders } from "../../../application/auth/admin/ListCustomProviders.js"
import { updateCustomProvider } from "../../../application/auth/admin/UpdateCustomProvider.js"
import { CustomProviderStore } from "../../../application/auth/ports/CustomProviderStore.js"
import { EndpointRefused, ProviderEndpoints } from "../../../application/auth/ports/ProviderEndpoints.js"
import { Discovery } from "../../../domain/auth/CustomProvider.js"
import * as CustomProviderFixtures from "../../support/auth/CustomProviderFixtures.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"

/**
 * The admin API's custom-provider use cases on the memory store, with a provider directory
 * that records what it was asked: a refused URL, a discovery document per issuer.
 */
const directory = () => {
  const discovered: Array<string> = []
  const layer = Layer.succeed(ProviderEndpoints, {
    check: (url) =>
      url.includes("internal")
        ? Effect.fail(new EndpointRefused({ message: "URL cannot be used" }))
        : Effect.void,
    discover: (discoveryUrl, issuer) =>
      Effect.sync(() => discovered.push(discoveryUrl)).pipe(
        Effect.as(
          new Discovery({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`
          })
        )
      )
  })
  return { discovered, layer }
}

const oidc = CustomProviderFixtures.oidcParams

/** The error's code and message, or "ok". */
const outcome = <A, R>(effect: Effect.Effect<A, ErrorResponse.Reason, R>) =>
  Effect.map(
    Effect.either(effect),
    Either.match({
      onLeft: (reason) => `${ErrorResponse.describe(reason).code}: ${ErrorResponse.describe(reason).message}`,
      onRight: () => "ok"
    })
  )

const services = (overrides: Parameters<typeof MemoryServices.layer>[0] = {}) => {
  const endpoints = directory()
  return { endpoints, layer: Layer.merge(MemoryServices.layer(overrides), endpoints.layer) }
}

describe("custom providers (admin use cases)", () => {
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
      expect(yield* outcome(createCustomProvider(oidc("custom:one")))).toBe(
        "conflict: A custom OAuth provider with this identifier already exists"
      )
      expect(
        yield* outcome(createCustomProvider(oidc("custom:four", { issuer: "https://internal.example" })))
      ).toBe("validation_failed: URL cannot be used")
      expect(yield* outcome(createCustomProvider(oidc("custom:two")))).toBe("ok")
      expect(yield* outcome(createCustomProvider(oidc("custom:three")))).toBe(
        "over_custom_provider_quota: Maximum number of custom OAuth/OIDC providers reached"
      )
      // The quota is counted before the URLs are checked or the provider asked.
      const asked = endpoints.discovered.length
      expect(
        yield* outcome(createCustomProvider(oidc("custom:three", { issuer: "https://internal.example" })))
      ).toBe("over_custom_provider_quota: Maximum number of custom OAuth/OIDC providers reached")
      expect(endpoints.discovered).toHaveLength(asked)
      expect((yield* listCustomProviders("")).map((provider) => provider.identifier).sort()).toEqual([
        "custom:one",
        "custom:two"
      ])
      expect(yield* listCustomProviders("oauth2")).toEqual([])

      // Deleting frees a place under the quota.
      yield* deleteCustomProvider("custom:two")
      expect(yield* outcome(createCustomProvider(oidc("custom:three")))).toBe("ok")
      expect(yield* outcome(deleteCustomProvider("custom:two"))).toBe(
        "custom_provider_not_found: Custom OAuth provider not found"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("an update replaces what it gives, keeps the rest, and rediscovers only a moved issuer", () =>
    Effect.gen(function* () {
      const { endpoints, layer } = services()
      yield* Effect.gen(function* () {
        const created = yield* createCustomProvider(
          oidc("custom:kept", { authorizationParams: { prompt: "login" }, acceptableClientIds: ["ios"] })
        )
        yield* TestClock.adjust("1 minute")
        const renamed = yield* updateCustomProvider("custom:kept", { name: "Renamed", scopes: ["profile"] })
        expect(renamed.name).toBe("Renamed")
        expect(renamed.scopes).toEqual(["openid", "profile"])
        expect(renamed.authorizationParams).toEqual({ prompt: "login" })
        expect(renamed.acceptableClientIds).toEqual(["ios"])
        expect(Redacted.value(renamed.clientSecret)).toBe("secret")
        expect(renamed.updatedAt.getTime()).toBe(created.updatedAt.getTime() + 60_000)
        expect(endpoints.discovered).toHaveLength(1)

        const moved = yield* updateCustomProvider("custom:kept", {
          issuer: "https://id2.acme.example",
          clientSecret: "new-secret"
        })
        expect(Option.map(moved.discovery, (document) => document.issuer)).toEqual(
          Option.some("https://id2.acme.example")
        )
        expect(endpoints.discovered).toHaveLength(2)
        const stored = yield* getCustomProvider("custom:kept")
        expect(Redacted.value(stored.clientSecret)).toBe("new-secret")

        expect(
          yield* outcome(updateCustomProvider("custom:kept", { issuer: "https://internal.example" }))
        ).toBe("validation_failed: URL cannot be used")
        expect(
          Option.getOrThrow(
            (yield* (yield* CustomProviderStore).find("custom:kept")).pipe(Option.map((p) => p.issuer))
          )
        ).toEqual(Option.some("https://id2.acme.example"))
        expect(yield* outcome(updateCustomProvider("acme", {}))).toBe(
          "validation_failed: identifier must start with 'custom:' prefix, e.g. 'custom:acme'"
        )
        expect(yield* outcome(updateCustomProvider("custom:none", {}))).toBe(
          "custom_provider_not_found: Custom OAuth provider not found"
        )
        expect(
          yield* outcome(updateCustomProvider("custom:kept", { authorizationParams: { state: "fixed" } }))
        ).toBe("validation_failed: Cannot override reserved OAuth parameter: state")
      }).pipe(Effect.provide(layer))
    })
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off every call answers feature_disabled", () =>
    Effect.gen(function* () {
      const disabled = "feature_disabled: Custom OAuth providers are disabled"
      expect(yield* outcome(createCustomProvider(oidc("custom:off")))).toBe(disabled)
      expect(yield* outcome(listCustomProviders(""))).toBe(disabled)
      expect(yield* outcome(getCustomProvider("custom:off"))).toBe(disabled)
      expect(yield* outcome(deleteCustomProvider("custom:off"))).toBe(disabled)
    }).pipe(Effect.provide(services({ customProviders: { enabled: false, quota: Option.none() } }).layer))
  )
})
