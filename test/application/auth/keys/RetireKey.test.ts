import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import * as EnsureSigningKey from "../../../../application/auth/EnsureSigningKey.js"
import * as AddKey from "../../../../application/auth/keys/AddKey.js"
import * as ListKeys from "../../../../application/auth/keys/ListKeys.js"
import * as RetireKey from "../../../../application/auth/keys/RetireKey.js"
import * as SigningKey from "../../../../domain/auth/SigningKey.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"
import { failureOf } from "../support/Failure.js"

const layer = Layer.mergeAll(
  SigningKeyStoreMemory.layer,
  KeyFixtures.settingsLayer(),
  KeyFixtures.generatingOnly,
  NodeSecrets.layer
)

describe("RetireKey (keys retire), on the memory key store", () => {
  it.effect("retires a standby key once; the current key and an unknown kid are refused", () =>
    Effect.gen(function* () {
      const current = yield* EnsureSigningKey.ensureSigningKey
      const standby = yield* AddKey.addKey("ES256")
      expect((yield* RetireKey.retireKey(standby.kid)).status).toBe("retired")
      expect((yield* ListKeys.listKeys).map((key) => [key.kid, key.phase, key.published])).toEqual([
        [current.kid, "current", true],
        [standby.kid, "retired", false]
      ])
      expect(yield* failureOf(RetireKey.retireKey(standby.kid))).toBe("KeyAlreadyRetired")
      expect(yield* failureOf(RetireKey.retireKey(current.kid))).toBe("CurrentKeyNotRetirable")
      expect(yield* failureOf(RetireKey.retireKey(SigningKey.Kid.make("no-such-key")))).toBe(
        "UnknownSigningKey"
      )
    }).pipe(Effect.provide(layer))
  )
})
