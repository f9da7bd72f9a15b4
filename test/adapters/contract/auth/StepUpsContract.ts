import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { type StepUp, StepUps } from "../../../../application/auth/ports/StepUps.js"
import * as Assurance from "../../../../domain/auth/Assurance.js"
import type { Factor } from "../../../../domain/auth/Factor.js"
import type { FactorChallenge } from "../../../../domain/auth/FactorChallenge.js"
import type * as Session from "../../../../domain/auth/Session.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"
import { challenged, enrolled } from "./FactorStoreContract.js"
import { noInterval, outcome, present, signIn } from "./SessionStoreContract.js"

const later = Time.plus(Fixtures.t0, "1 hour")

/** A signed-in user with a verified TOTP factor, a challenge of it, and another aal1 session. */
const stepping = Effect.gen(function* () {
  const signedIn = yield* signIn()
  const other = yield* signIn(signedIn.user)
  const factor = yield* enrolled({}, signedIn.user.id)
  yield* Effect.flatMap(FactorStore, (store) =>
    store.markVerified(signedIn.user.id, factor.id, Fixtures.t0, Option.none())
  )
  const challenge = yield* challenged(factor, Fixtures.t0)
  return { ...signedIn, other, factor, challenge }
})

const stepUpOf = (
  seen: Session.Session,
  factor: Factor,
  challenge: FactorChallenge,
  step: number,
  child = Fixtures.refreshToken()
): StepUp => ({
  sessionId: seen.id,
  factorId: factor.id,
  factorType: factor.factorType,
  child: child.hash,
  now: later,
  challengeId: challenge.id,
  totpStep: Option.some(step),
  seen
})

const stepUp = (input: StepUp) => Effect.flatMap(StepUps, (stepUps) => stepUps.stepUp(input))

/** The challenge still open: spending it now, with a step past any recorded, succeeds. */
const stillOpen = (factor: Factor, challenge: FactorChallenge, step: number) =>
  Effect.flatMap(FactorStore, (store) =>
    Effect.map(store.useChallenge(factor.id, challenge.id, later, Option.some(step)), (used) => used._tag)
  )

export const stepUpsContract = (it: It) =>
  describe("StepUps", () => {
    it.effect("spends the challenge, records the step and raises the session as a raise does", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { challenge, factor, other, session, token, user } = yield* stepping
        const child = Fixtures.refreshToken()
        const stepped = yield* stepUp(stepUpOf(session, factor, challenge, 100, child))
        const raised = Assurance.raise(session, factor.id, factor.factorType, later)
        expect(stepped).toEqual({ _tag: "Raised", raised })
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(raised))
        const store = yield* FactorStore
        expect(Option.map(yield* store.find(user.id, factor.id), (found) => found.lastTotpStep)).toEqual(
          Option.some(Option.some(100))
        )
        expect(
          Option.flatMap(yield* store.findChallenge(factor.id, challenge.id), (found) => found.verifiedAt)
        ).toEqual(Option.some(later))
        // The user's other aal1 session ended; the token held before is a reuse; the new one rotates.
        expect(Option.isSome(Option.getOrThrow(yield* sessions.findById(other.session.id)).revokedAt)).toBe(
          true
        )
        expect((yield* present(child, noInterval, Time.plus(later, "1 second")))._tag).toBe("Rotated")
        expect(outcome(yield* Effect.either(present(token, noInterval, Time.plus(later, "2 seconds"))))).toBe(
          "RefreshTokenAlreadyUsed"
        )
      })
    )

    it.effect("writes nothing for a spent challenge or a step not past the last", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { challenge, factor, session, user } = yield* stepping
        const store = yield* FactorStore
        yield* store.useChallenge(factor.id, challenge.id, later, Option.some(100))
        expect(yield* stepUp(stepUpOf(session, factor, challenge, 101))).toEqual({ _tag: "Gone" })

        const next = yield* challenged(factor, Fixtures.t0)
        expect(yield* stepUp(stepUpOf(session, factor, next, 100))).toEqual({ _tag: "StepRefused" })
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(session))
        expect(Option.map(yield* store.find(user.id, factor.id), (found) => found.lastTotpStep)).toEqual(
          Option.some(Option.some(100))
        )
        expect(yield* stillOpen(factor, next, 101)).toBe("Used")
      })
    )

    it.effect("writes nothing when the session moved or ended since it was read", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const moved = yield* stepping
        // Refreshed after the request read it.
        const rotated = yield* present(moved.token, noInterval, Fixtures.t0)
        expect(yield* stepUp(stepUpOf(moved.session, moved.factor, moved.challenge, 100))).toEqual({
          _tag: "Moved"
        })
        expect(yield* sessions.findById(moved.session.id)).toEqual(Option.some(rotated.session))
        expect(yield* stillOpen(moved.factor, moved.challenge, 100)).toBe("Used")

        const ended = yield* stepping
        yield* sessions.revoke(ended.session.id, Fixtures.t0)
        expect(yield* stepUp(stepUpOf(ended.session, ended.factor, ended.challenge, 100))).toEqual({
          _tag: "Moved"
        })
        expect(Option.getOrThrow(yield* sessions.findById(ended.session.id)).aal).toBe("aal1")
        expect(yield* stillOpen(ended.factor, ended.challenge, 100)).toBe("Used")
      })
    )

    it.effect(
      "step ups of several users at once each raise their own session; a moved one writes nothing",
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const users = yield* Effect.all(Array.from({ length: 8 }, () => stepping))
          const moved = users[3]
          if (moved === undefined) return
          const rotated = yield* present(moved.token, noInterval, Fixtures.t0)
          const outcomes = yield* Effect.forEach(
            users,
            ({ challenge, factor, session }) => stepUp(stepUpOf(session, factor, challenge, 100)),
            { concurrency: "unbounded" }
          )
          expect(outcomes.map((stepped) => stepped._tag)).toEqual(
            users.map((user) => (user === moved ? "Moved" : "Raised"))
          )
          for (const [index, { factor, session }] of users.entries()) {
            const stepped = outcomes[index]
            if (stepped?._tag !== "Raised") continue
            expect(stepped.raised).toEqual(Assurance.raise(session, factor.id, factor.factorType, later))
            expect(Option.getOrThrow(yield* sessions.findById(session.id)).aal).toBe("aal2")
          }
          expect(yield* sessions.findById(moved.session.id)).toEqual(Option.some(rotated.session))
          expect(yield* stillOpen(moved.factor, moved.challenge, 100)).toBe("Used")
        })
    )

    it.effect(`${concurrently} step ups with one challenge at once: exactly one raises the session`, () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { challenge, factor, session } = yield* stepping
        const children = Array.from({ length: concurrently }, () => Fixtures.refreshToken())
        const outcomes = yield* Effect.forEach(
          children,
          (child, index) => stepUp(stepUpOf(session, factor, challenge, 100 + index, child)),
          { concurrency: "unbounded" }
        )
        const raised = outcomes.flatMap((stepped, index) => (stepped._tag === "Raised" ? [index] : []))
        expect(raised).toHaveLength(1)
        // The others found the challenge spent, or the session raised under them.
        expect(outcomes.every((stepped) => ["Raised", "Gone", "Moved"].includes(stepped._tag))).toBe(true)
        const winner = children[raised[0] ?? -1]
        if (winner === undefined) return
        expect(Option.getOrThrow(yield* sessions.findById(session.id)).aal).toBe("aal2")
        // Only the winner's token is live: every other child was never stored.
        expect((yield* present(winner, noInterval, Time.plus(later, "1 second")))._tag).toBe("Rotated")
        const loser = children.find((_, index) => index !== raised[0])
        if (loser !== undefined) {
          expect(
            outcome(yield* Effect.either(present(loser, noInterval, Time.plus(later, "2 seconds"))))
          ).toBe("RefreshTokenNotFound")
        }
      })
    )
  })
