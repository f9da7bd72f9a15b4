import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { CustomProviderStore } from "../../../../application/auth/ports/CustomProviderStore.js"
import * as CustomProvider from "../../../../domain/auth/CustomProvider.js"
import * as CustomProviderFixtures from "../../../support/auth/CustomProviderFixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

const provider = (identifier: string) =>
  Either.getOrThrow(
    Either.map(
      CustomProvider.checkNew(
        CustomProviderFixtures.oidcParams(identifier, {
          attributeMapping: { email: "mail", tier: { level: 3 } },
          authorizationParams: { prompt: "login" },
          customClaimsAllowlist: ["groups"]
        })
      ),
      (fields) =>
        new CustomProvider.CustomProvider({
          ...fields,
          id: crypto.randomUUID(),
          discovery: Option.some(
            new CustomProvider.Discovery({
              issuer: "https://id.acme.example",
              authorization_endpoint: "https://id.acme.example/auth",
              token_endpoint: "https://id.acme.example/token",
              jwks_uri: "https://id.acme.example/jwks",
              token_endpoint_auth_methods_supported: ["client_secret_post"]
            })
          ),
          createdAt: new Date("2026-01-01T00:00:00Z"),
          updatedAt: new Date("2026-01-01T00:00:00Z")
        })
    )
  )

for (const target of ["pglite", "server"] as const) {
  layer(TestDatabase.authLayer(target, [""]), { timeout: "60 seconds" })(
    `CustomProviderStorePg on ${TestDatabase.describeTarget(target)}`,
    (it) =>
      describe("custom providers on Postgres", () => {
        it.effect("a provider comes back as it was saved: maps, lists, discovery and secret", () =>
          Effect.gen(function* () {
            const store = yield* CustomProviderStore
            const saved = provider(`custom:round-${target}`)
            yield* store.create(saved, Option.none())
            const found = Option.getOrThrow(yield* store.find(saved.identifier))
            expect(found.attributeMapping).toEqual({ email: "mail", tier: { level: 3 } })
            expect(found.authorizationParams).toEqual({ prompt: "login" })
            expect(found.customClaimsAllowlist).toEqual(["groups"])
            expect(found.scopes).toEqual(["openid"])
            expect(Redacted.value(found.clientSecret)).toBe("secret")
            expect(found.discovery).toEqual(saved.discovery)
            expect(found.createdAt.getTime()).toBe(saved.createdAt.getTime())
            const longest = provider(`custom:${"a".repeat(43)}`)
            yield* store.create(longest, Option.none())
            expect(Option.isSome(yield* store.find(longest.identifier))).toBe(true)
            expect(yield* Effect.flip(store.create(provider(saved.identifier), Option.none()))).toMatchObject(
              {
                _tag: "IdentifierTaken"
              }
            )
            expect(yield* store.remove(longest.identifier)).toBe(true)
            expect(yield* store.remove(longest.identifier)).toBe(false)
          }).pipe(Effect.provide(AuthStoragePg.layer("")))
        )

        it.effect("creations at the same moment never pass the quota together", () =>
          Effect.gen(function* () {
            const store = yield* CustomProviderStore
            const existing = (yield* store.list(Option.none())).length
            const quota = Option.some(existing + 3)
            const outcomes = yield* Effect.forEach(
              Array.from({ length: 8 }, (_, index) => provider(`custom:race-${target}-${index}`)),
              (candidate) => Effect.either(store.create(candidate, quota)),
              { concurrency: "unbounded" }
            )
            expect(outcomes.filter(Either.isRight)).toHaveLength(3)
            expect(outcomes.filter(Either.isLeft).map((left) => left.left._tag)).toEqual(
              Array.from({ length: 5 }, () => "OverProviderQuota")
            )
            expect(yield* store.list(Option.none())).toHaveLength(existing + 3)
          }).pipe(Effect.provide(AuthStoragePg.layer("")))
        )
      })
  )
}
