import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as JobLockMemory from "../../../adapters/memory/JobLockMemory.js"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { updateUser } from "../../../application/auth/admin/UpdateUser.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { lockName, reapExpired } from "../../../application/auth/ReapExpired.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { JobLock } from "../../../application/ports/JobLock.js"
import { batchSize } from "../../../application/Reaping.js"
import * as Session from "../../../domain/auth/Session.js"
import { challengeOf as factorChallengeOf } from "../../adapters/contract/auth/FactorStoreContract.js"
import { flowOf } from "../../adapters/contract/auth/FlowStateStoreContract.js"
import { challengeOf as passkeyChallengeOf } from "../../adapters/contract/auth/PasskeyStoreContract.js"
import { enrolled, services, signedInUser, verified } from "./support/Factors.js"
import { adminNoChange, client, freshEmail, signedUp } from "./support/Scenarios.js"

const world = Layer.merge(services(), JobLockMemory.layer)

/** A user with an unverified factor, a challenged one and a verified one, a passkey challenge and a flow. */
const littered = Effect.gen(function* () {
  const signedIn = yield* signedInUser()
  const userId = signedIn.user.id
  const now = new Date(yield* Clock.currentTimeMillis)
  const factors = yield* FactorStore
  const abandoned = yield* enrolled(userId, "totp")
  const challenged = yield* enrolled(userId, "totp")
  const challenge = factorChallengeOf(challenged.factor, now)
  yield* factors.createChallenge(challenge, Option.none())
  const kept = yield* enrolled(userId, "totp")
  yield* verified(signedIn, kept.factor.id)
  const passkeyChallenge = passkeyChallengeOf(Option.some(userId), now)
  yield* Effect.flatMap(PasskeyStore, (store) => store.createChallenge(passkeyChallenge))
  const flow = flowOf(userId, now)
  yield* Effect.flatMap(FlowStateStore, (flows) => flows.create(flow))
  return { userId, abandoned, challenged, challenge, kept }
})

describe("ReapExpired, on memory adapters under TestClock", () => {
  it.effect("reaps expired passkey challenges and abandoned factors first, a day's leftovers later", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(Duration.days(1))
      const { abandoned, challenge, challenged, kept, userId } = yield* littered
      const factors = yield* FactorStore
      // Made at the same instant: their order is their ids'.
      const ids = Effect.map(factors.list(userId), (listed) => listed.map((factor) => factor.id).sort())

      // Nothing is past its time yet.
      expect(yield* reapExpired).toEqual(
        Option.some({
          factorChallenges: 0,
          abandonedFactors: 0,
          passkeyChallenges: 0,
          flowStates: 0,
          endedSessions: 0,
          outlivedSessions: 0,
          retiredRefreshTokens: 0,
          anonymousUsers: 0
        })
      )
      // Past MFA_FACTOR_EXPIRY_DURATION and the passkey challenge's five minutes: the factor nobody
      // challenged goes; the challenged one stays while its challenge is kept.
      yield* TestClock.adjust(Duration.minutes(6))
      expect(yield* reapExpired).toEqual(
        Option.some({
          factorChallenges: 0,
          abandonedFactors: 1,
          passkeyChallenges: 1,
          flowStates: 0,
          endedSessions: 0,
          outlivedSessions: 0,
          retiredRefreshTokens: 0,
          anonymousUsers: 0
        })
      )
      expect(yield* ids).toEqual([challenged.factor.id, kept.factor.id].sort())
      expect(Option.isSome(yield* factors.findChallenge(challenged.factor.id, challenge.id))).toBe(true)
      expect(yield* ids).not.toContain(abandoned.factor.id)

      // A day on, the challenge and the flow go, and with the challenge the factor it held.
      yield* TestClock.adjust(Duration.hours(24))
      expect(yield* reapExpired).toEqual(
        Option.some({
          factorChallenges: 1,
          abandonedFactors: 1,
          passkeyChallenges: 0,
          flowStates: 1,
          endedSessions: 0,
          outlivedSessions: 0,
          retiredRefreshTokens: 0,
          anonymousUsers: 0
        })
      )
      expect(yield* ids).toEqual([kept.factor.id])
      expect(yield* factors.findChallenge(challenged.factor.id, challenge.id)).toEqual(Option.none())
    }).pipe(Effect.provide(world))
  )

  it.effect("reaps a session a day after it ended, and a refresh token a day after it retired", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const ended = yield* signedInUser()
      const refreshed = yield* signedUp()
      const endedId = Option.getOrThrow(ended.session).id
      yield* sessions.revoke(endedId, new Date(yield* Clock.currentTimeMillis))
      const retired = Redacted.value(refreshed.refreshToken)
      const live = yield* refreshSession(retired)
      const reaped = Effect.map(
        reapExpired,
        Option.map(({ endedSessions, retiredRefreshTokens }) => ({ endedSessions, retiredRefreshTokens }))
      )

      yield* TestClock.adjust(Duration.hours(23))
      expect(yield* reaped).toEqual(Option.some({ endedSessions: 0, retiredRefreshTokens: 0 }))
      yield* TestClock.adjust(Duration.hours(2))
      expect(yield* reaped).toEqual(Option.some({ endedSessions: 1, retiredRefreshTokens: 1 }))
      expect(yield* sessions.findById(endedId)).toEqual(Option.none())
      // The retired token is unknown now; the live one refreshes on.
      expect((yield* Effect.flip(refreshSession(retired)))._tag).toBe("RefreshTokenUnknown")
      expect((yield* refreshSession(Redacted.value(live.refreshToken))).session.id).toBe(live.session.id)
    }).pipe(Effect.provide(world))
  )

  it.effect("reaps a session a day past SESSIONS_INACTIVITY_TIMEOUT from its last use", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const refreshed = yield* signedUp()
      yield* TestClock.adjust(Duration.hours(1))
      const idle = yield* signedUp()
      yield* TestClock.adjust(Duration.hours(1))
      const live = yield* refreshSession(Redacted.value(refreshed.refreshToken))
      const outlived = Effect.map(
        reapExpired,
        Option.map((reaped) => reaped.outlivedSessions)
      )
      // Three hours and a day after its sign-in (at 1 h), the idle session is not yet reaped.
      yield* TestClock.adjust(Duration.hours(26))
      expect(yield* outlived).toEqual(Option.some(0))
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* outlived).toEqual(Option.some(1))
      expect(yield* sessions.findById(idle.session.id)).toEqual(Option.none())
      // The other was used at 2 h: it goes an hour later.
      expect(Option.isSome(yield* sessions.findById(live.session.id))).toBe(true)
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* outlived).toEqual(Option.some(1))
      expect(yield* sessions.findById(live.session.id)).toEqual(Option.none())
    }).pipe(
      Effect.provide(
        Layer.merge(
          services({
            sessionLimits: { ...Session.unlimited, inactivityTimeout: Option.some(Duration.hours(3)) }
          }),
          JobLockMemory.layer
        )
      )
    )
  )

  it.effect("reaps an anonymous user 30 days after the sign-in, unless they took an address", () =>
    Effect.gen(function* () {
      const users = yield* UserRepository
      yield* signedUp()
      const early = yield* signInAnonymously({}, client)
      const converted = yield* signInAnonymously({}, client)
      yield* updateUser(converted.user.id, { ...adminNoChange, email: freshEmail(), emailConfirm: true })
      yield* TestClock.adjust(Duration.days(1))
      const later = yield* signInAnonymously({}, client)
      const anonymousUsers = Effect.map(
        reapExpired,
        Option.map((reaped) => reaped.anonymousUsers)
      )
      // Used since, the early one still goes 30 days after its sign-in, not a moment before.
      yield* TestClock.adjust(Duration.days(29))
      const refreshed = yield* refreshSession(Redacted.value(early.refreshToken))
      expect(yield* anonymousUsers).toEqual(Option.some(0))
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* anonymousUsers).toEqual(Option.some(1))
      expect(yield* users.findById(early.user.id)).toEqual(Option.none())
      expect((yield* Effect.flip(refreshSession(Redacted.value(refreshed.refreshToken))))._tag).toBe(
        "RefreshTokenUnknown"
      )
      expect(Option.isSome(yield* users.findById(converted.user.id))).toBe(true)
      expect(Option.isSome(yield* users.findById(later.user.id))).toBe(true)
      yield* TestClock.adjust(Duration.days(1))
      expect(yield* anonymousUsers).toEqual(Option.some(1))
      expect(yield* users.findById(later.user.id)).toEqual(Option.none())
    }).pipe(Effect.provide(world))
  )

  it.effect("keeps anonymous users while anonymous sign-ins are off", () =>
    Effect.gen(function* () {
      const users = yield* UserRepository
      yield* signedUp()
      const anonymous = yield* signInAnonymously({}, client)
      yield* TestClock.adjust(Duration.days(31))
      const settings = yield* AuthSettings
      const reaped = yield* Effect.provideService(reapExpired, AuthSettings, {
        ...settings,
        anonymousEnabled: false
      })
      expect(Option.map(reaped, (report) => report.anonymousUsers)).toEqual(Option.some(0))
      expect(Option.isSome(yield* users.findById(anonymous.user.id))).toBe(true)
    }).pipe(Effect.provide(world))
  )

  it.effect("deletes in batches of batchSize until one comes back short", () =>
    Effect.gen(function* () {
      const flows = yield* FlowStateStore
      const userId = (yield* signedInUser()).user.id
      const count = batchSize * 2 + 50
      const at = new Date(yield* Clock.currentTimeMillis)
      for (let n = 0; n < count; n++) {
        yield* flows.create(flowOf(userId, at))
      }
      yield* TestClock.adjust(Duration.hours(25))
      const batches: Array<number> = []
      const counting = Layer.succeed(FlowStateStore, {
        ...flows,
        purge: (createdBefore, limit) =>
          Effect.tap(flows.purge(createdBefore, limit), (removed) => Effect.sync(() => batches.push(removed)))
      })
      const report = yield* Effect.provide(reapExpired, counting)
      expect(Option.map(report, (reaped) => reaped.flowStates)).toEqual(Option.some(count))
      expect(batches).toEqual([batchSize, batchSize, 50])
    }).pipe(Effect.provide(world))
  )

  it.effect("keeps a flow state while its mail's link and then its code may still be used", () =>
    Effect.gen(function* () {
      // The mail's link lives a day (these settings' MAILER_OTP_EXP), the code then 300 s at
      // least, or EXTERNAL_FLOW_STATE_EXPIRY_DURATION: a link followed at the last minute of its
      // day still has a code to exchange.
      const keptAfter = (flowStateLifetime: Duration.Duration, hours: number) =>
        Effect.gen(function* () {
          const flows = yield* FlowStateStore
          const userId = (yield* signedInUser()).user.id
          yield* flows.create(flowOf(userId, new Date(yield* Clock.currentTimeMillis)))
          yield* TestClock.adjust(Duration.hours(hours))
          return Option.map(yield* reapExpired, (reaped) => reaped.flowStates)
        }).pipe(Effect.provide(Layer.merge(services({ flowStateLifetime }), JobLockMemory.layer)))
      expect(yield* keptAfter(Duration.seconds(300), 24 + 4 / 60)).toEqual(Option.some(0))
      expect(yield* keptAfter(Duration.seconds(300), 24 + 6 / 60)).toEqual(Option.some(1))
      expect(yield* keptAfter(Duration.hours(48), 71)).toEqual(Option.some(0))
      expect(yield* keptAfter(Duration.hours(48), 73)).toEqual(Option.some(1))
    })
  )

  it.effect("skips while another run holds the lock", () =>
    Effect.gen(function* () {
      const lock = yield* JobLock
      expect(yield* lock.runExclusive(lockName, reapExpired)).toEqual(Option.some(Option.none()))
      expect(Option.isSome(yield* reapExpired)).toBe(true)
    }).pipe(Effect.provide(world))
  )
})
