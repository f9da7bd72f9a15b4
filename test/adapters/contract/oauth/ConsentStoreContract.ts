import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { ConsentStore } from "../../../../application/oauth/ports/ConsentStore.js"
import { CodeChallenge } from "../../../../domain/Pkce.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

const setup = Effect.gen(function* () {
  const client = Fixtures.client()
  yield* Effect.flatMap(ClientRepository, (clients) => clients.insert(client))
  const user = yield* Fixtures.user()
  return { client, user }
})

/**
 * Instants a year before every other test's, so that purging at them touches only what the
 * purge test parked itself and its counts are exact in a database the other tests share.
 */
const longAgo = Time.minus(Fixtures.t0, "365 days")

export const consentStoreContract = (it: It) =>
  describe("ConsentStore", () => {
    it.effect("remembers a consent for that user, that client and its scopes only", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const other = yield* setup
        expect(yield* consents.hasConsent(user.id, client.id, [])).toBe(false)
        yield* consents.grant(user.id, client.id, ["mcp:tools", "profile"], Fixtures.t0)
        expect(yield* consents.hasConsent(user.id, client.id, [])).toBe(true)
        expect(yield* consents.hasConsent(user.id, client.id, ["profile", "mcp:tools"])).toBe(true)
        expect(yield* consents.hasConsent(user.id, client.id, ["mcp:tools"])).toBe(true)
        // A request for more than was approved is asked again.
        expect(yield* consents.hasConsent(user.id, client.id, ["mcp:tools", "mcp:admin"])).toBe(false)
        expect(yield* consents.hasConsent(user.id, other.client.id, [])).toBe(false)
        expect(yield* consents.hasConsent(other.user.id, client.id, [])).toBe(false)
      })
    )

    it.effect("granting again adds its scopes to those approved", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        yield* consents.grant(user.id, client.id, ["mcp:tools"], Fixtures.t0)
        yield* consents.grant(user.id, client.id, [], Time.plus(Fixtures.t0, "1 hour"))
        yield* consents.grant(user.id, client.id, ["mcp:admin", "mcp:tools"], Time.plus(Fixtures.t0, "1 day"))
        expect(yield* consents.hasConsent(user.id, client.id, ["mcp:tools", "mcp:admin"])).toBe(true)
        expect(yield* consents.hasConsent(user.id, client.id, ["email"])).toBe(false)
      })
    )

    it.effect("takes a parked consent prompt once, with all its fields", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const pending = Fixtures.pendingConsent({
          clientId: client.id,
          userId: user.id,
          codeChallenge: Option.some(CodeChallenge.make("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        })
        yield* consents.park(pending)
        expect(yield* consents.take(pending.tokenHash, Fixtures.t0)).toEqual(Option.some(pending))
        expect(yield* consents.take(pending.tokenHash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect("keeps absent fields absent", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const pending = Fixtures.pendingConsent({
          clientId: client.id,
          userId: user.id,
          clientState: Option.none(),
          scope: Option.none(),
          resource: Option.none()
        })
        yield* consents.park(pending)
        expect(yield* consents.take(pending.tokenHash, Fixtures.t0)).toEqual(Option.some(pending))
      })
    )

    it.effect("answers none for an unknown prompt", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        expect(yield* consents.take(Fixtures.secret("lkg_").hash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect("a prompt is taken up to 1 ms before its expiry, not at it", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const before = Fixtures.pendingConsent({ clientId: client.id, userId: user.id })
        const at = Fixtures.pendingConsent({ clientId: client.id, userId: user.id })
        yield* consents.park(before)
        yield* consents.park(at)
        const lastMoment = Time.minus(before.expiresAt, "1 millis")
        expect(yield* consents.take(before.tokenHash, lastMoment)).toEqual(Option.some(before))
        expect(yield* consents.take(at.tokenHash, at.expiresAt)).toEqual(Option.none())
      })
    )

    it.effect("taking an expired prompt uses it up", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const pending = Fixtures.pendingConsent({ clientId: client.id, userId: user.id })
        yield* consents.park(pending)
        expect(yield* consents.take(pending.tokenHash, Time.plus(pending.expiresAt, "1 hour"))).toEqual(
          Option.none()
        )
        // Even a take that claims an instant before the expiry no longer finds it.
        expect(yield* consents.take(pending.tokenHash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect(`of ${concurrently} concurrent takes of one prompt exactly one gets it`, () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const pending = Fixtures.pendingConsent({ clientId: client.id, userId: user.id })
        yield* consents.park(pending)
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => consents.take(pending.tokenHash, Fixtures.t0)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toEqual([Option.some(pending)])
      })
    )

    it.effect("purges the prompts expired at the instant given, and only those", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        const early = Fixtures.pendingConsent({
          clientId: client.id,
          userId: user.id,
          createdAt: longAgo,
          expiresAt: Time.plus(longAgo, "10 minutes")
        })
        const late = Fixtures.pendingConsent({
          clientId: client.id,
          userId: user.id,
          createdAt: longAgo,
          expiresAt: Time.plus(longAgo, "20 minutes")
        })
        yield* consents.park(early)
        yield* consents.park(late)
        expect(yield* consents.purge(Time.minus(early.expiresAt, "1 millis"), wholeBatch)).toBe(0)
        expect(yield* consents.purge(early.expiresAt, wholeBatch)).toBe(1)
        expect(yield* consents.purge(early.expiresAt, wholeBatch)).toBe(0)
        expect(yield* consents.take(early.tokenHash, longAgo)).toEqual(Option.none())
        expect(yield* consents.take(late.tokenHash, longAgo)).toEqual(Option.some(late))
      })
    )

    it.effect("purging leaves given consents alone", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const { client, user } = yield* setup
        yield* consents.grant(user.id, client.id, [], longAgo)
        yield* consents.purge(Time.plus(Fixtures.t0, "3650 days"), wholeBatch)
        expect(yield* consents.hasConsent(user.id, client.id, [])).toBe(true)
      })
    )

    it.effect("removing the client removes its consents and its prompts", () =>
      Effect.gen(function* () {
        const consents = yield* ConsentStore
        const clients = yield* ClientRepository
        const { client, user } = yield* setup
        const pending = Fixtures.pendingConsent({ clientId: client.id, userId: user.id })
        yield* consents.grant(user.id, client.id, [], Fixtures.t0)
        yield* consents.park(pending)
        expect(yield* clients.remove(client.id)).toBe(true)
        expect(yield* consents.hasConsent(user.id, client.id, [])).toBe(false)
        expect(yield* consents.take(pending.tokenHash, Fixtures.t0)).toEqual(Option.none())
      })
    )
  })
