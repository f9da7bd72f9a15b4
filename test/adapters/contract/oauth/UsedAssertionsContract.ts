import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { UsedAssertions } from "../../../../application/oauth/ports/UsedAssertions.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

const setup = Effect.gen(function* () {
  const client = Fixtures.client({
    origin: "metadata_document",
    jwksUri: Option.some("https://app.example/jwks")
  })
  yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
  return client
})

/** A year before every other test's instants: purging there touches only this suite's rows. */
const longAgo = Time.minus(Fixtures.t0, "365 days")

export const usedAssertionsContract = (it: It) =>
  describe("UsedAssertions", () => {
    it.effect("records an assertion id once per client: the second time is a replay", () =>
      Effect.gen(function* () {
        const used = yield* UsedAssertions
        const client = yield* setup
        const other = yield* setup
        const jti = Fixtures.secret("jti-").hash
        const until = Time.plus(Fixtures.t0, "2 minutes")
        expect(yield* used.record(client.id, jti, until)).toBe(true)
        expect(yield* used.record(client.id, jti, until)).toBe(false)
        // Ids are the client's own: another client may use the same one.
        expect(yield* used.record(other.id, jti, until)).toBe(true)
      })
    )

    it.effect(`of ${concurrently} concurrent records of one id exactly one is first`, () =>
      Effect.gen(function* () {
        const used = yield* UsedAssertions
        const client = yield* setup
        const jti = Fixtures.secret("jti-").hash
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            used.record(client.id, jti, Time.plus(Fixtures.t0, "1 minute"))
          ),
          { concurrency: "unbounded" }
        )
        expect(results.filter((first) => first)).toHaveLength(1)
      })
    )

    it.effect("purges the ids kept until the instant given, and only those", () =>
      Effect.gen(function* () {
        const used = yield* UsedAssertions
        const client = yield* setup
        const early = Fixtures.secret("jti-").hash
        const late = Fixtures.secret("jti-").hash
        yield* used.record(client.id, early, Time.plus(longAgo, "1 minute"))
        yield* used.record(client.id, late, Time.plus(longAgo, "1 hour"))
        expect(yield* used.purge(Time.plus(longAgo, "1 minute"), wholeBatch)).toBe(1)
        // The purged id may be recorded anew; the kept one is still a replay.
        expect(yield* used.record(client.id, early, Time.plus(longAgo, "2 minutes"))).toBe(true)
        expect(yield* used.record(client.id, late, Time.plus(longAgo, "1 hour"))).toBe(false)
        expect(yield* used.purge(Time.plus(longAgo, "1 hour"), wholeBatch)).toBe(2)
      })
    )

    it.effect("forgets a client's ids with the client", () =>
      Effect.gen(function* () {
        const used = yield* UsedAssertions
        const client = yield* setup
        const jti = Fixtures.secret("jti-").hash
        yield* used.record(client.id, jti, Time.plus(Fixtures.t0, "1 minute"))
        yield* Effect.flatMap(ClientRepository, (clients) => clients.remove(client.id))
        yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
        expect(yield* used.record(client.id, jti, Time.plus(Fixtures.t0, "1 minute"))).toBe(true)
      })
    )
  })
