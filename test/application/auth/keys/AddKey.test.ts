import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AddKey from "../../../../application/auth/keys/AddKey.js"
import * as ListKeys from "../../../../application/auth/keys/ListKeys.js"
import { SigningKeyStore } from "../../../../application/auth/ports/SigningKeyStore.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"
import { failureOf } from "../support/Failure.js"

const layerWith = KeyFixtures.memoryKeys

describe("AddKey (keys add), on the memory key store", () => {
  it.effect("adds a standby key of an allowed algorithm, published before it signs", () =>
    Effect.gen(function* () {
      const added = yield* AddKey.addKey("ES256")
      expect(added.status).toBe("standby")
      expect((yield* ListKeys.listKeys).map((key) => [key.kid, key.signs])).toEqual([[added.kid, false]])
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect("adding a key of an algorithm JWT_VALID_METHODS leaves out is refused before one is made", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(AddKey.addKey("EdDSA"))).toBe("AlgorithmNotAllowed")
      expect(yield* (yield* SigningKeyStore).list).toEqual([])
    }).pipe(Effect.provide(layerWith({ validMethods: ["RS256"] })))
  )
})
