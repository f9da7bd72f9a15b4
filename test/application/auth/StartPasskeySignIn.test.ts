import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import { startPasskeySignIn } from "../../../application/auth/StartPasskeySignIn.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { world } from "./support/Factors.js"
import { describedFailureOf } from "./support/Failure.js"

describe("StartPasskeySignIn (POST /passkeys/authentication/options), on memory adapters", () => {
  it.effect("gives discoverable request options and keeps a sign-in challenge of nobody", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
      const started = yield* startPasskeySignIn()
      expect(started.options).toEqual({
        rpId: "localhost",
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        timeout: 300_000,
        allowCredentials: [],
        userVerification: "preferred"
      })
      expect(started.expiresAt.toISOString()).toBe("2026-03-01T10:05:00.000Z")
      const store = yield* PasskeyStore
      const taken = yield* store.takeChallenge(started.challengeId, "authentication", Option.none())
      expect(Option.map(taken, (challenge) => [challenge.ceremony.type, challenge.userId])).toEqual(
        Option.some(["request", Option.none()])
      )
      const again = yield* startPasskeySignIn()
      expect(again.options.challenge).not.toBe(started.options.challenge)
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers passkey_disabled while PASSKEY_ENABLED is off", () =>
    Effect.gen(function* () {
      expect(yield* describedFailureOf(startPasskeySignIn())).toBe("passkey_disabled: Passkeys are disabled")
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: false, maxPerUser: 10, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )
})
