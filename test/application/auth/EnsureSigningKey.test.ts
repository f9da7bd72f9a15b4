import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as EnsureSigningKey from "../../../application/auth/EnsureSigningKey.js"
import * as ListKeys from "../../../application/auth/keys/ListKeys.js"
import { SigningKeyStore } from "../../../application/auth/ports/SigningKeyStore.js"
import * as KeyFixtures from "../../support/auth/KeyFixtures.js"
import { failureOf } from "./support/Failure.js"

const layerWith = KeyFixtures.memoryKeys

describe("EnsureSigningKey (the first start), on the memory key store", () => {
  it.effect("a first start stores a current key; the next finds it", () =>
    Effect.gen(function* () {
      const first = yield* EnsureSigningKey.ensureSigningKey
      expect(first._tag).toBe("Created")
      expect(yield* EnsureSigningKey.ensureSigningKey).toEqual({ _tag: "Existing", kid: first.kid })
      expect((yield* (yield* SigningKeyStore).list).length).toBe(1)
    }).pipe(Effect.provide(layerWith()))
  )

  it.effect(
    "with a configured signing key, a first start stores nothing and the list shows the configured key",
    () =>
      Effect.gen(function* () {
        expect(yield* EnsureSigningKey.ensureSigningKey).toEqual({ _tag: "Configured", kid: "cfg" })
        expect(yield* (yield* SigningKeyStore).list).toEqual([])
        const listed = yield* ListKeys.listKeys
        expect(listed.map((key) => [key.kid, key.source, key.phase, key.signs, key.published])).toEqual([
          ["cfg", "configuration", "configured", true, false]
        ])
      }).pipe(
        Effect.provide(
          layerWith({
            keys: [{ kid: "cfg", alg: "HS256", kty: "oct", k: "c2VjcmV0", key_ops: ["sign", "verify"] }]
          })
        )
      )
  )

  it.effect("unusable AUTHSVC_JWT_KEYS fail the first start", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(EnsureSigningKey.ensureSigningKey)).toBe("InvalidConfiguredKey")
    }).pipe(Effect.provide(layerWith({ keys: [{ kid: "x", alg: "none" }] })))
  )
})
