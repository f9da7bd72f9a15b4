import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { logout } from "../../../application/auth/Logout.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import * as Session from "../../../domain/auth/Session.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as Factors from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { client, password, signedUp, withSessions } from "./support/Scenarios.js"

const { reuseInterval } = MemoryServices
const services = MemoryServices.layer()

describe("RefreshSession, on memory adapters under TestClock", () => {
  it.effect("a refresh token rotates once into a new pair; a token never issued is not found", () =>
    Effect.gen(function* () {
      const first = yield* signedUp()
      const child = yield* refreshSession(Redacted.value(first.refreshToken))
      expect(child.user.id).toBe(first.user.id)
      expect(Redacted.value(child.refreshToken)).not.toBe(Redacted.value(first.refreshToken))
      expect(yield* failureOf(refreshSession("not-a-token"))).toBe("refresh_token_not_found")
    }).pipe(Effect.provide(services))
  )

  it.effect(
    "the previous refresh token yields the same child until the reuse interval ends, then revokes the session",
    () =>
      Effect.gen(function* () {
        const first = yield* signedUp()
        const token = Redacted.value(first.refreshToken)
        const child = yield* refreshSession(token)
        yield* TestClock.adjust(Duration.subtract(reuseInterval, Duration.millis(1)))
        const again = yield* refreshSession(token)
        expect(Redacted.value(again.refreshToken)).toBe(Redacted.value(child.refreshToken))
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* failureOf(refreshSession(token))).toBe("refresh_token_already_used")
        // The reuse revoked the session: its live token is refused too.
        expect(yield* failureOf(refreshSession(Redacted.value(child.refreshToken)))).toBe(
          "refresh_token_not_found"
        )
      }).pipe(Effect.provide(services))
  )
})

describe("RefreshSession under session limits, on memory adapters under TestClock", () => {
  const limited = (more: Partial<Session.Limits>) =>
    Factors.services({ sessionLimits: { ...Session.unlimited, ...more } })

  it.effect("past SESSIONS_TIMEBOX from the sign-in, the live token is refused and nothing rotates", () =>
    Effect.gen(function* () {
      const first = yield* signedUp()
      yield* TestClock.adjust(Duration.hours(23))
      const child = yield* refreshSession(Redacted.value(first.refreshToken))
      yield* TestClock.adjust(Duration.sum(Duration.hours(1), Duration.millis(1)))
      const live = Redacted.value(child.refreshToken)
      expect(yield* describedFailureOf(refreshSession(live))).toBe(
        "session_expired: Invalid Refresh Token: Session Expired"
      )
      // Refused before the rule: the live token is still the live one, and still refused.
      expect(yield* failureOf(refreshSession(live))).toBe("session_expired")
    }).pipe(Effect.provide(limited({ timebox: Option.some(Duration.days(1)) })))
  )

  it.effect("SESSIONS_INACTIVITY_TIMEOUT counts from the last refresh", () =>
    Effect.gen(function* () {
      const first = yield* signedUp()
      yield* TestClock.adjust(Duration.minutes(50))
      const child = yield* refreshSession(Redacted.value(first.refreshToken))
      yield* TestClock.adjust(Duration.minutes(60))
      const grandchild = yield* refreshSession(Redacted.value(child.refreshToken))
      yield* TestClock.adjust(Duration.sum(Duration.minutes(60), Duration.millis(1)))
      expect(yield* describedFailureOf(refreshSession(Redacted.value(grandchild.refreshToken)))).toBe(
        "session_expired: Invalid Refresh Token: Session Expired (Inactivity)"
      )
    }).pipe(Effect.provide(limited({ inactivityTimeout: Option.some(Duration.hours(1)) })))
  )

  it.effect(
    "SESSIONS_ALLOW_LOW_AAL: an aal1 session of a user with a verified factor ends with its allowance, and its access tokens with it",
    () =>
      Effect.gen(function* () {
        const signedIn = yield* Factors.signedInUser()
        const factorId = yield* Factors.totp(signedIn, "phone app")
        yield* Factors.verified(signedIn, factorId)
        const low = yield* signInWithPassword({
          email: Option.getOrThrow(signedIn.user.email),
          phone: "",
          password,
          client
        })
        expect(low.grant.access.expiresIn).toBe(600)
        yield* TestClock.adjust(Duration.minutes(4))
        const refreshed = yield* refreshSession(Redacted.value(low.grant.refreshToken))
        expect(refreshed.access.expiresIn).toBe(360)
        yield* TestClock.adjust(Duration.sum(Duration.minutes(6), Duration.seconds(1)))
        expect(yield* describedFailureOf(refreshSession(Redacted.value(refreshed.refreshToken)))).toBe(
          "session_expired: Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)"
        )
      }).pipe(Effect.provide(limited({ allowLowAal: Option.some(Duration.minutes(10)) })))
  )

  it.effect(
    "SESSIONS_SINGLE_PER_USER: a newer sign-in ends the older session's refreshes, until it ends itself",
    () =>
      Effect.gen(function* () {
        const { grants } = yield* withSessions(0)
        const [older] = grants
        if (older === undefined) throw new Error("expected a first session")
        yield* TestClock.adjust(Duration.minutes(1))
        const older2 = yield* refreshSession(Redacted.value(older.refreshToken))
        yield* TestClock.adjust(Duration.minutes(1))
        const email = Option.getOrThrow(older.user.email)
        const newer = (yield* signInWithPassword({ email, phone: "", password, client })).grant
        yield* TestClock.adjust(Duration.minutes(1))
        expect(yield* describedFailureOf(refreshSession(Redacted.value(older2.refreshToken)))).toBe(
          "session_expired: Invalid Refresh Token: Session Expired (Revoked by Newer Login)"
        )
        const newer2 = yield* refreshSession(Redacted.value(newer.refreshToken))
        // Signed out, the newer session supersedes nothing: the older one's live token rotates.
        yield* logout(yield* Authenticate.user(Redacted.value(newer2.access.token)), "local")
        expect(yield* failureOf(refreshSession(Redacted.value(older2.refreshToken)))).toBe("ok")
      }).pipe(Effect.provide(limited({ singlePerUser: true })))
  )
})
