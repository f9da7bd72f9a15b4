import { describe, expect, type Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as EnsureSigningKey from "../../../../application/auth/EnsureSigningKey.js"
import { SigningKeyStore } from "../../../../application/auth/ports/SigningKeyStore.js"
import * as SigningKey from "../../../../domain/auth/SigningKey.js"
import * as KeyFixtures from "../../../support/auth/KeyFixtures.js"

export type It = Vitest.MethodsNonLive<SigningKeyStore>

const kid = (value: string) => SigningKey.Kid.make(value)
const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes))
const jwk = (marker: string) => ({ kty: "EC", crv: "P-256", x: "x", y: "y", d: marker })

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) throw new Error(`expected a right, got ${String(either.left)}`)
  return either.right
}

const ensureLayer = Layer.mergeAll(KeyFixtures.settingsLayer(), KeyFixtures.generatingOnly, NodeSecrets.layer)

/**
 * The steps share one store and run in order: the current key is a singleton, so the suite
 * follows one deployment's keys from the first start on.
 */
export const signingKeyStoreContract = (it: It) =>
  describe("SigningKeyStore", () => {
    it.effect("starts empty", () =>
      Effect.gen(function* () {
        expect(yield* (yield* SigningKeyStore).list).toEqual([])
      })
    )

    it.effect("of 10 instances starting at once on an empty store, exactly one stores a first key", () =>
      Effect.gen(function* () {
        const outcomes = yield* Effect.all(
          Array.from({ length: 10 }, () => EnsureSigningKey.ensureSigningKey),
          {
            concurrency: "unbounded"
          }
        )
        const keys = yield* (yield* SigningKeyStore).list
        expect(keys.length).toBe(1)
        const [only] = keys
        expect(only?.status).toBe("current")
        expect(only?.algorithm).toBe("RS256")
        expect(outcomes.filter((outcome) => outcome._tag === "Created").length).toBe(1)
        expect(new Set(outcomes.map((outcome) => outcome.kid))).toEqual(new Set([only?.kid]))
        // Started again, it finds the key.
        expect((yield* EnsureSigningKey.ensureSigningKey)._tag).toBe("Existing")
      }).pipe(Effect.provide(ensureLayer))
    )

    it.effect(
      "keeps a key as written, private material included; a taken kid or a second current key is refused",
      () =>
        Effect.gen(function* () {
          const store = yield* SigningKeyStore
          const standby = right(
            SigningKey.add({ kid: kid("b"), algorithm: "ES256", privateJwk: jwk("d-b") }, ["ES256"], at(0))
          )
          expect(yield* store.insert(standby)).toBe(true)
          expect(yield* store.insert(standby)).toBe(false)
          const rival = SigningKey.first(
            { kid: kid("rival"), algorithm: "EdDSA", privateJwk: jwk("d-r") },
            at(0)
          )
          expect(yield* store.insert(rival)).toBe(false)
          const read = (yield* store.list).find((key) => key.kid === "b")
          expect(read?.status).toBe("standby")
          expect(read?.algorithm).toBe("ES256")
          expect(read?.createdAt).toEqual(at(0))
          expect(read?.activatedAt).toEqual(Option.none())
          expect(Option.map(read?.privateJwk ?? Option.none(), Redacted.value)).toEqual(
            Option.some(jwk("d-b"))
          )
          expect((yield* store.list).map((key) => key.kid)).not.toContain("rival")
        })
    )

    it.effect("applies a rotation; the same decision made by a second operator changes nothing", () =>
      Effect.gen(function* () {
        const store = yield* SigningKeyStore
        const keys = yield* store.list
        const first = right(SigningKey.rotate(keys, at(10)))
        const second = right(SigningKey.rotate(keys, at(11)))
        const results = yield* Effect.all([store.update(first), store.update(second)], { concurrency: 2 })
        expect(results.filter((ok) => ok)).toEqual([true])
        const after = yield* store.list
        expect(after.filter((key) => key.status === "current").map((key) => key.kid)).toEqual(["b"])
        const previous = after.find((key) => key.status === "previous")
        expect(previous?.stoppedSigningAt).toEqual(Option.some(results[0] === true ? at(10) : at(11)))
        expect(after.find((key) => key.kid === "b")?.activatedAt).toEqual(previous?.stoppedSigningAt)
      })
    )

    it.effect("retiring wipes the private material and keeps the record", () =>
      Effect.gen(function* () {
        const store = yield* SigningKeyStore
        const previous = (yield* store.list).find((key) => key.status === "previous")
        if (previous === undefined) throw new Error("no previous key")
        const change = right(SigningKey.retire(yield* store.list, previous.kid, at(20)))
        expect(yield* store.update([change])).toBe(true)
        expect(yield* store.update([change])).toBe(false)
        const retired = (yield* store.list).find((key) => key.kid === previous.kid)
        expect(retired?.status).toBe("retired")
        expect(retired?.privateJwk).toEqual(Option.none())
        expect(retired?.retiredAt).toEqual(Option.some(at(20)))
      })
    )
  })
