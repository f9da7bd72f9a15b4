import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ApiKeys from "../../../../application/auth/keys/ApiKeys.js"
import { ApiKeySigner } from "../../../../application/auth/ports/ApiKeySigner.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { partial } from "../support/Ports.js"

/** A signer that writes the role and the secret it signed with, so the test can read them. */
const recordingSigner = partial(ApiKeySigner, {
  sign: (claims, secret) => Effect.succeed(Redacted.make(`${claims.role}:${Redacted.value(secret)}`))
})

const secret = Option.some(Redacted.make("a shared secret of enough length"))

describe("ApiKeys (keys api)", () => {
  it.effect(
    "signs the anon and service_role keys with JWT_SECRET, and says whether the latter is admin",
    () =>
      Effect.gen(function* () {
        const keys = yield* ApiKeys.apiKeys
        expect(Redacted.value(keys.anon)).toBe("anon:a shared secret of enough length")
        expect(Redacted.value(keys.serviceRole)).toBe("service_role:a shared secret of enough length")
        expect(keys.serviceRoleIsAdmin).toBe(true)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(recordingSigner, KeyFixtures.settingsLayer({ secret }), MemoryServices.settings())
        )
      )
  )

  it.effect("without a secret, or with HS256 not accepted, refuses before signing anything", () =>
    Effect.gen(function* () {
      // The signer has no method: signing would die, naming it.
      const refusing = (settings: Partial<KeyFixtures.Settings>) =>
        Layer.mergeAll(
          partial(ApiKeySigner, {}),
          KeyFixtures.settingsLayer(settings),
          MemoryServices.settings()
        )
      expect(yield* failureOf(ApiKeys.apiKeys.pipe(Effect.provide(refusing({}))))).toBe("ApiKeysUnavailable")
      const reasons = yield* Effect.all([
        Effect.flip(ApiKeys.apiKeys).pipe(Effect.provide(refusing({}))),
        Effect.flip(ApiKeys.apiKeys).pipe(Effect.provide(refusing({ secret, validMethods: ["RS256"] })))
      ])
      expect(reasons.map((reason) => reason.reason)).toEqual(["no_secret", "hs256_not_accepted"])
    })
  )
})
