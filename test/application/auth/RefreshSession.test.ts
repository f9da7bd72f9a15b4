import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { signedUp } from "./support/Scenarios.js"

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
