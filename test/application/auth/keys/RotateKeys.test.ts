import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as EnsureSigningKey from "../../../../application/auth/EnsureSigningKey.js"
import * as AddKey from "../../../../application/auth/keys/AddKey.js"
import * as ListKeys from "../../../../application/auth/keys/ListKeys.js"
import * as RetireKey from "../../../../application/auth/keys/RetireKey.js"
import * as RotateKeys from "../../../../application/auth/keys/RotateKeys.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"
import { failureOf } from "../support/Failure.js"

const layerWith = KeyFixtures.memoryKeys

describe("RotateKeys (keys rotate), on the memory key store under TestClock", () => {
  it.effect("a key's life through the commands: add, rotate, list, retire", () =>
    Effect.gen(function* () {
      const first = yield* EnsureSigningKey.ensureSigningKey
      expect(first._tag).toBe("Created")
      expect(yield* failureOf(RotateKeys.rotateKeys)).toBe("NoStandbyKey")
      const added = yield* AddKey.addKey("ES256")
      expect(added.status).toBe("standby")
      yield* TestClock.adjust("11 minutes")
      const rotation = yield* RotateKeys.rotateKeys
      expect(rotation.current).toBe(added.kid)
      expect(rotation.previous).toEqual(Option.some(first.kid))
      expect(Duration.toMinutes(rotation.publishedFor)).toBe(11)
      expect(yield* failureOf(RetireKey.retireKey(added.kid))).toBe("CurrentKeyNotRetirable")
      const listed = yield* ListKeys.listKeys
      expect(listed.map((key) => [key.kid, key.phase, key.signs, key.published])).toEqual([
        [first.kid, "previous", false, true],
        [added.kid, "current", true, true]
      ])
      expect(Option.isSome(listed[0]?.verifiesUntil ?? Option.none())).toBe(true)
      const retired = yield* RetireKey.retireKey(first.kid)
      expect(retired.status).toBe("retired")
      expect(yield* failureOf(RetireKey.retireKey(first.kid))).toBe("KeyAlreadyRetired")
      expect((yield* ListKeys.listKeys).map((key) => [key.phase, key.published])).toEqual([
        ["retired", false],
        ["current", true]
      ])
    }).pipe(Effect.provide(layerWith()))
  )
})
