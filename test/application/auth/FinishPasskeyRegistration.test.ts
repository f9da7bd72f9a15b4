import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { finishPasskeyRegistration } from "../../../application/auth/FinishPasskeyRegistration.js"
import { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import { startPasskeyRegistration } from "../../../application/auth/StartPasskeyRegistration.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { atAal2, signedInUser, totp, verified, world } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { authenticator, registered } from "./support/Passkeys.js"

const verify = (
  signedIn: Parameters<typeof finishPasskeyRegistration>[0],
  challengeId: string,
  credential: unknown
) => finishPasskeyRegistration(signedIn, { challengeId, credential: Option.some(credential) })

describe("FinishPasskeyRegistration (POST /passkeys/registration/verify), on memory adapters", () => {
  it.effect("stores the verified credential as a passkey named Passkey, and spends the challenge", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
      const signedIn = yield* signedInUser()
      const device = authenticator({ aaguid: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4" })
      const started = yield* startPasskeyRegistration(signedIn)
      const answer = device.register(started.options)
      const passkey = yield* verify(signedIn, started.challengeId, answer)
      expect([
        passkey.friendlyName,
        passkey.credentialId,
        passkey.signCount,
        passkey.createdAt.toISOString()
      ]).toEqual(["Passkey", answer.id, 1, "2026-03-01T10:00:00.000Z"])
      expect(passkey.aaguid).toEqual(Option.some("ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4"))
      expect(
        (yield* Effect.flatMap(PasskeyStore, (store) => store.list(signedIn.user.id))).map((p) => p.id)
      ).toEqual([passkey.id])
      expect(yield* describedFailureOf(verify(signedIn, started.challengeId, answer))).toBe(
        "webauthn_challenge_not_found: Challenge not found or already used"
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect("checks the request in Supabase Auth's order", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      expect(
        yield* describedFailureOf(
          finishPasskeyRegistration(signedIn, { challengeId: "", credential: Option.none() })
        )
      ).toBe("validation_failed: challenge_id is required")
      expect(
        yield* describedFailureOf(
          finishPasskeyRegistration(signedIn, { challengeId: "x", credential: Option.none() })
        )
      ).toBe("validation_failed: credential is required")
      expect(yield* describedFailureOf(verify(signedIn, "x", {}))).toBe(
        "validation_failed: challenge_id must be a valid UUID"
      )
      expect(yield* describedFailureOf(verify(signedIn, crypto.randomUUID(), {}))).toBe(
        "webauthn_challenge_not_found: Challenge not found or already used"
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect(
    "refuses a malformed credential, a failed ceremony, another user's challenge and an expired one",
    () =>
      Effect.gen(function* () {
        const signedIn = yield* signedInUser()
        const other = yield* signedInUser()
        const device = authenticator()
        const malformed = yield* startPasskeyRegistration(signedIn)
        expect(yield* describedFailureOf(verify(signedIn, malformed.challengeId, { id: 3 }))).toBe(
          "webauthn_verification_failed: Invalid credential response"
        )
        const wrongOrigin = yield* startPasskeyRegistration(signedIn)
        const elsewhere = device.register(wrongOrigin.options, { origin: "http://localhost:4000" })
        expect(yield* describedFailureOf(verify(signedIn, wrongOrigin.challengeId, elsewhere))).toBe(
          "webauthn_verification_failed: Credential verification failed"
        )
        const theirs = yield* startPasskeyRegistration(other)
        expect(yield* failureOf(verify(signedIn, theirs.challengeId, device.register(theirs.options)))).toBe(
          "webauthn_challenge_not_found"
        )
        // Left alone by the refusal: its user can still answer it.
        expect(
          yield* failureOf(verify(other, theirs.challengeId, authenticator().register(theirs.options)))
        ).toBe("ok")
        const late = yield* startPasskeyRegistration(signedIn)
        const answer = device.register(late.options)
        yield* TestClock.adjust(Duration.sum(Passkey.defaultChallengeLifetime, Duration.seconds(1)))
        expect(yield* describedFailureOf(verify(signedIn, late.challengeId, answer))).toBe(
          "webauthn_challenge_expired: Challenge has expired"
        )
        expect(yield* Effect.flatMap(PasskeyStore, (store) => store.list(signedIn.user.id))).toEqual([])
      }).pipe(Effect.provide(world()))
  )

  it.effect("refuses a credential already stored, and the per-user limit reached since the options", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const device = authenticator()
      const first = yield* startPasskeyRegistration(signedIn)
      const second = yield* startPasskeyRegistration(signedIn)
      const answer = device.register(first.options)
      yield* verify(signedIn, first.challengeId, answer)
      // The same credential answering another challenge of the user (the browser would exclude it).
      const replayed = device.register(second.options)
      const store = yield* PasskeyStore
      const again = { ...replayed, id: answer.id }
      expect(yield* failureOf(verify(signedIn, second.challengeId, again))).toBe(
        "webauthn_verification_failed"
      )
      const third = yield* startPasskeyRegistration(signedIn)
      const fourth = yield* startPasskeyRegistration(signedIn)
      yield* verify(signedIn, third.challengeId, authenticator().register(third.options))
      expect(
        yield* describedFailureOf(
          verify(signedIn, fourth.challengeId, authenticator().register(fourth.options))
        )
      ).toBe("too_many_passkeys: Maximum number of passkeys reached")
      expect((yield* store.list(signedIn.user.id)).length).toBe(2)
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: true, maxPerUser: 2, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )

  it.effect("answers webauthn_credential_exists for a credential id stored for someone else", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      const device = authenticator()
      const mine = yield* registered(signedIn, device)
      // A second authenticator holding the same credential id (a cloned or shared key) for the other user.
      const started = yield* startPasskeyRegistration(other)
      const clone = authenticator({ credentialId: mine.credentialId })
      expect(
        yield* describedFailureOf(verify(other, started.challengeId, clone.register(started.options)))
      ).toBe("webauthn_credential_exists: This credential is already registered")
    }).pipe(Effect.provide(world()))
  )

  it.effect("keeps the aal2 rule at the verify", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const started = yield* startPasskeyRegistration(signedIn)
      yield* verified(signedIn, yield* totp(signedIn, "app"))
      const answer = authenticator().register(started.options)
      expect(yield* failureOf(verify(signedIn, started.challengeId, answer))).toBe("insufficient_aal")
      expect(yield* failureOf(verify(atAal2(signedIn), started.challengeId, answer))).toBe("ok")
    }).pipe(Effect.provide(world()))
  )
})
