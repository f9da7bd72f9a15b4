import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as DatabaseEncryption from "../../../../adapters/crypto/auth/DatabaseEncryption.js"
import { createCustomProvider } from "../../../../application/auth/admin/CreateCustomProvider.js"
import { getCustomProvider } from "../../../../application/auth/admin/GetCustomProvider.js"
import { updateCustomProvider } from "../../../../application/auth/admin/UpdateCustomProvider.js"
import { CustomProviderStore } from "../../../../application/auth/ports/CustomProviderStore.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import { atRestKeys } from "../support/Factors.js"
import { describedFailureOf } from "../support/Failure.js"
import { disabled, services } from "../support/ProviderDirectory.js"

const oidc = CustomProviderFixtures.oidcParams

describe("UpdateCustomProvider (admin), on the memory store", () => {
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
          yield* describedFailureOf(
            updateCustomProvider("custom:kept", { issuer: "https://internal.example" })
          )
        ).toBe("validation_failed: URL cannot be used")
        expect(
          Option.getOrThrow(
            (yield* (yield* CustomProviderStore).find("custom:kept")).pipe(Option.map((p) => p.issuer))
          )
        ).toEqual(Option.some("https://id2.acme.example"))
        expect(yield* describedFailureOf(updateCustomProvider("acme", {}))).toBe(
          "validation_failed: identifier must start with 'custom:' prefix, e.g. 'custom:acme'"
        )
        expect(yield* describedFailureOf(updateCustomProvider("custom:none", {}))).toBe(
          "custom_provider_not_found: Custom OAuth provider not found"
        )
        expect(
          yield* describedFailureOf(
            updateCustomProvider("custom:kept", { authorizationParams: { state: "fixed" } })
          )
        ).toBe("validation_failed: Cannot override reserved OAuth parameter: state")
      }).pipe(Effect.provide(layer))
    })
  )

  it.effect(
    "with secrets encrypted at rest, the client secret is stored sealed; an update without one keeps it",
    () =>
      Effect.gen(function* () {
        const { layer } = services()
        yield* Effect.gen(function* () {
          const store = yield* CustomProviderStore
          const stored = Effect.map(store.find("custom:sealed"), (found) =>
            Redacted.value(Option.getOrThrow(found).clientSecret)
          )
          const created = yield* createCustomProvider(oidc("custom:sealed"))
          const sealed = yield* stored
          expect(JSON.parse(sealed)).toMatchObject({ key_id: "key-1", alg: "aes-gcm-hkdf" })
          expect(yield* DatabaseEncryption.open(atRestKeys, created.id, sealed)).toBe("secret")
          yield* updateCustomProvider("custom:sealed", { name: "Renamed" })
          expect(yield* stored).toBe(sealed)
          yield* updateCustomProvider("custom:sealed", { clientSecret: "another secret" })
          const resealed = yield* stored
          expect(JSON.parse(resealed)).toMatchObject({ key_id: "key-1" })
          expect(yield* DatabaseEncryption.open(atRestKeys, created.id, resealed)).toBe("another secret")
        }).pipe(Effect.provide(Layer.merge(layer, DatabaseEncryption.layer(atRestKeys))))
      })
  )

  it.effect("with CUSTOM_OAUTH_ENABLED off answers feature_disabled", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(updateCustomProvider("custom:off", {}))).toBe(
        "feature_disabled: Custom OAuth providers are disabled"
      )
    }).pipe(Effect.provide(disabled()))
  )
})
