import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SessionStore } from "../../../../application/oauth/ports/SessionStore.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

/**
 * Instants a year before every other test's, so that purging at them touches only what the
 * purge test created itself and its counts are exact in a database the other tests share.
 */
const longAgo = Time.minus(Fixtures.t0, "365 days")

export const sessionStoreContract = (it: It) =>
  describe("SessionStore", () => {
    it.effect("finds a session by its token hash, with all its fields", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* Fixtures.user()
        const session = Fixtures.browserSession({ userId: user.id })
        yield* sessions.create(session)
        expect(yield* sessions.find(session.tokenHash, Fixtures.t0)).toEqual(Option.some(session))
      })
    )

    it.effect("answers none for an unknown session", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        expect(yield* sessions.find(Fixtures.secret("lkw_").hash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect(
      "a session is found up to 1 ms before its expiry, not at it, and finding it uses nothing up",
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const user = yield* Fixtures.user()
          const session = Fixtures.browserSession({ userId: user.id })
          yield* sessions.create(session)
          const lastMoment = Time.minus(session.expiresAt, "1 millis")
          expect(yield* sessions.find(session.tokenHash, lastMoment)).toEqual(Option.some(session))
          expect(yield* sessions.find(session.tokenHash, lastMoment)).toEqual(Option.some(session))
          expect(yield* sessions.find(session.tokenHash, session.expiresAt)).toEqual(Option.none())
          // Not finding it at its expiry did not delete it: that is purge's job.
          expect(yield* sessions.find(session.tokenHash, Fixtures.t0)).toEqual(Option.some(session))
        })
    )

    it.effect("several sessions of one user are each found on their own", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* Fixtures.user()
        const first = Fixtures.browserSession({ userId: user.id })
        const second = Fixtures.browserSession({
          userId: user.id,
          createdAt: Time.plus(Fixtures.t0, "1 hour"),
          expiresAt: Time.plus(Fixtures.t0, "9 hours")
        })
        yield* sessions.create(first)
        yield* sessions.create(second)
        const at = Time.plus(Fixtures.t0, "8 hours")
        expect(yield* sessions.find(first.tokenHash, at)).toEqual(Option.none())
        expect(yield* sessions.find(second.tokenHash, at)).toEqual(Option.some(second))
      })
    )

    it.effect(`${concurrently} concurrent look-ups of one session all find it`, () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* Fixtures.user()
        const session = Fixtures.browserSession({ userId: user.id })
        yield* sessions.create(session)
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => sessions.find(session.tokenHash, Fixtures.t0)),
          { concurrency: "unbounded" }
        )
        expect(results).toEqual(Array.from({ length: concurrently }, () => Option.some(session)))
      })
    )

    it.effect("purges the sessions expired at the instant given, and only those", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* Fixtures.user()
        const early = Fixtures.browserSession({
          userId: user.id,
          createdAt: longAgo,
          expiresAt: Time.plus(longAgo, "8 hours")
        })
        const late = Fixtures.browserSession({
          userId: user.id,
          createdAt: longAgo,
          expiresAt: Time.plus(longAgo, "9 hours")
        })
        yield* sessions.create(early)
        yield* sessions.create(late)
        expect(yield* sessions.purge(Time.minus(early.expiresAt, "1 millis"), wholeBatch)).toBe(0)
        expect(yield* sessions.purge(early.expiresAt, wholeBatch)).toBe(1)
        expect(yield* sessions.purge(early.expiresAt, wholeBatch)).toBe(0)
        expect(yield* sessions.find(early.tokenHash, longAgo)).toEqual(Option.none())
        expect(yield* sessions.find(late.tokenHash, longAgo)).toEqual(Option.some(late))
      })
    )
  })
