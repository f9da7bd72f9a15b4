import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as SigningKeyStoreMemory from "../../../../adapters/memory/auth/SigningKeyStoreMemory.js"
import * as EnsureSigningKey from "../../../../application/auth/EnsureSigningKey.js"
import * as AddKey from "../../../../application/auth/keys/AddKey.js"
import * as ListKeys from "../../../../application/auth/keys/ListKeys.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"

const layer = Layer.mergeAll(
  SigningKeyStoreMemory.layer,
  KeyFixtures.settingsLayer(),
  KeyFixtures.generatingOnly,
  NodeSecrets.layer
)

describe("ListKeys (keys list), on the memory key store under TestClock", () => {
  it.effect("lists no key before the first start, then each stored key with its phase now", () =>
    Effect.gen(function* () {
      expect(yield* ListKeys.listKeys).toEqual([])
      const first = yield* EnsureSigningKey.ensureSigningKey
      yield* TestClock.adjust("1 minute")
      const added = yield* AddKey.addKey("RS256")
      const listed = yield* ListKeys.listKeys
      expect(listed.map((key) => [key.kid, key.source, key.phase, key.signs, key.published])).toEqual([
        [first.kid, "store", "current", true, true],
        [added.kid, "store", "standby", false, true]
      ])
      expect(listed.map((key) => Option.isSome(key.retiredAt))).toEqual([false, false])
    }).pipe(Effect.provide(layer))
  )
})
