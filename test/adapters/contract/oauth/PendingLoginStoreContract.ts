import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { PendingLoginStore } from "../../../../application/oauth/ports/PendingLoginStore.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

const setup = Effect.gen(function* () {
  const client = Fixtures.client()
  yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
  return client
})

export const pendingLoginStoreContract = (it: It) =>
  describe("PendingLoginStore", () => {
    it.effect("takes a pending login once, with all its fields", () =>
      Effect.gen(function* () {
        const pending = yield* PendingLoginStore
        const client = yield* setup
        const login = Fixtures.pendingLogin({ clientId: client.id })
        yield* pending.put(login)
        expect(yield* pending.take(login.stateHash, Fixtures.t0)).toEqual(Option.some(login))
        expect(Option.isNone(yield* pending.take(login.stateHash, Fixtures.t0))).toBe(true)
      })
    )

    it.effect("an expired pending login is not returned", () =>
      Effect.gen(function* () {
        const pending = yield* PendingLoginStore
        const client = yield* setup
        const login = Fixtures.pendingLogin({ clientId: client.id })
        yield* pending.put(login)
        expect(Option.isNone(yield* pending.take(login.stateHash, login.expiresAt))).toBe(true)
      })
    )

    it.effect(`of ${concurrently} concurrent takes exactly one gets it`, () =>
      Effect.gen(function* () {
        const pending = yield* PendingLoginStore
        const client = yield* setup
        const login = Fixtures.pendingLogin({ clientId: client.id })
        yield* pending.put(login)
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => pending.take(login.stateHash, Fixtures.t0)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toHaveLength(1)
      })
    )

    it.effect("purges expired pending logins only", () =>
      Effect.gen(function* () {
        const pending = yield* PendingLoginStore
        const client = yield* setup
        const old = Fixtures.pendingLogin({ clientId: client.id })
        const fresh = Fixtures.pendingLogin({
          clientId: client.id,
          expiresAt: Time.plus(Fixtures.t0, "1 hour")
        })
        yield* pending.put(old)
        yield* pending.put(fresh)
        expect(yield* pending.purge(Time.plus(Fixtures.t0, "10 minutes"), wholeBatch)).toBeGreaterThanOrEqual(
          1
        )
        expect(Option.isSome(yield* pending.take(fresh.stateHash, Fixtures.t0))).toBe(true)
        expect(Option.isNone(yield* pending.take(old.stateHash, Fixtures.t0))).toBe(true)
      })
    )
  })
