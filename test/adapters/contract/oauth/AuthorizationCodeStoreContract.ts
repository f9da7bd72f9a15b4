import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuthorizationCodeStore } from "../../../../application/oauth/ports/AuthorizationCodeStore.js"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

const setup = Effect.gen(function* () {
  const clients = yield* ClientRepository
  const client = Fixtures.client()
  yield* clients.insert(client)
  const user = yield* Fixtures.user()
  return { client, user }
})

export const authorizationCodeStoreContract = (it: It) =>
  describe("AuthorizationCodeStore", () => {
    it.effect("consumes a code once, and reports every later presentation as a replay", () =>
      Effect.gen(function* () {
        const codes = yield* AuthorizationCodeStore
        const { client, user } = yield* setup
        const code = Fixtures.code({ clientId: client.id, userId: user.id })
        yield* codes.issue(code)
        const at = Time.plus(Fixtures.t0, "5 seconds")
        const first = Option.getOrThrow(yield* codes.consume(code.hash, at))
        expect(first.wasConsumed).toBe(false)
        expect(first.code.grantId).toBe(code.grantId)
        expect(first.code.redirectUri).toBe(code.redirectUri)
        expect(first.code.consumedAt).toEqual(Option.some(at))
        const second = Option.getOrThrow(yield* codes.consume(code.hash, Time.plus(at, "1 second")))
        expect(second.wasConsumed).toBe(true)
        expect(second.code.consumedAt).toEqual(Option.some(at))
      })
    )

    it.effect("answers none for an unknown code", () =>
      Effect.gen(function* () {
        const codes = yield* AuthorizationCodeStore
        expect(Option.isNone(yield* codes.consume(Fixtures.secret().hash, Fixtures.t0))).toBe(true)
      })
    )

    it.effect(`of ${concurrently} concurrent redemptions exactly one wins`, () =>
      Effect.gen(function* () {
        const codes = yield* AuthorizationCodeStore
        const { client, user } = yield* setup
        const code = Fixtures.code({ clientId: client.id, userId: user.id })
        yield* codes.issue(code)
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => codes.consume(code.hash, Fixtures.t0)),
          { concurrency: "unbounded" }
        )
        const winners = results.filter((r) => Option.isSome(r) && !r.value.wasConsumed)
        expect(winners).toHaveLength(1)
        expect(results.every(Option.isSome)).toBe(true)
      })
    )

    it.effect("purges codes a day after they expired, not before", () =>
      Effect.gen(function* () {
        const codes = yield* AuthorizationCodeStore
        const { client, user } = yield* setup
        const code = Fixtures.code({ clientId: client.id, userId: user.id })
        yield* codes.issue(code)
        yield* codes.purge(Time.plus(code.expiresAt, "23 hours"), wholeBatch)
        expect(Option.isSome(yield* codes.consume(code.hash, Fixtures.t0))).toBe(true)
        const purged = yield* codes.purge(Time.plus(code.expiresAt, "1 day"), wholeBatch)
        expect(purged).toBeGreaterThanOrEqual(1)
        expect(Option.isNone(yield* codes.consume(code.hash, Fixtures.t0))).toBe(true)
      })
    )
  })
