import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { startPasskeyRegistration } from "../../../application/auth/StartPasskeyRegistration.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { User } from "../../../domain/User.js"
import { atAal2, signedInAs, signedInUser, totp, verified, world } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { authenticator, registered } from "./support/Passkeys.js"
import { client } from "./support/Scenarios.js"

describe("StartPasskeyRegistration (POST /passkeys/registration/options), on memory adapters", () => {
  it.effect(
    "gives creation options for a discoverable credential of the user and keeps a registration challenge",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
        const signedIn = yield* signedInUser("ada@example.com")
        const started = yield* startPasskeyRegistration(signedIn)
        expect(started.options.rp).toEqual({ id: "localhost", name: "latchkey tests" })
        expect(started.options.user).toEqual({
          id: Buffer.from(signedIn.user.id).toString("base64url"),
          name: "ada@example.com",
          displayName: "ada@example.com"
        })
        expect(started.options.authenticatorSelection).toEqual({
          residentKey: "required",
          requireResidentKey: true,
          userVerification: "preferred"
        })
        expect(started.options.attestation).toBe("none")
        expect(started.options.timeout).toBe(300_000)
        expect(started.expiresAt.toISOString()).toBe("2026-03-01T10:05:00.000Z")
        const taken = yield* Effect.flatMap(PasskeyStore, (store) =>
          store.takeChallenge(started.challengeId, "registration", Option.some(signedIn.user.id))
        )
        expect(Option.map(taken, (challenge) => [challenge.purpose, challenge.ceremony.type])).toEqual(
          Option.some(["registration", "create"])
        )
      }).pipe(Effect.provide(world()))
  )

  it.effect("excludes the user's passkeys and refuses at PASSKEY_MAX_PASSKEYS_PER_USER", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const first = yield* registered(signedIn, authenticator())
      const started = yield* startPasskeyRegistration(signedIn)
      expect(started.options.excludeCredentials.map((credential) => credential.id)).toEqual([
        first.credentialId
      ])
      yield* registered(signedIn, authenticator())
      expect(yield* describedFailureOf(startPasskeyRegistration(signedIn))).toBe(
        "too_many_passkeys: Maximum number of passkeys reached"
      )
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: true, maxPerUser: 2, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )

  it.effect("shows user_metadata.name as the display name", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      // The use case reads the user of the caller as it was authenticated.
      const named = {
        ...signedIn,
        user: new User({ ...signedIn.user, userMetadata: { name: "Ada Lovelace" } })
      }
      const started = yield* startPasskeyRegistration(named)
      expect(started.options.user.displayName).toBe("Ada Lovelace")
    }).pipe(Effect.provide(world()))
  )

  it.effect("refuses anonymous users and aal1 sessions of users with a verified factor", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const anonymous = yield* signedInAs(yield* signInAnonymously({}, client))
      expect(yield* failureOf(startPasskeyRegistration(anonymous))).toBe("no_authorization")
      yield* verified(signedIn, yield* totp(signedIn, "app"))
      expect(yield* describedFailureOf(startPasskeyRegistration(signedIn))).toBe(
        "insufficient_aal: AAL2 session is required to manage passkeys when MFA is enabled"
      )
      expect(yield* failureOf(startPasskeyRegistration(atAal2(signedIn)))).toBe("ok")
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers passkey_disabled while PASSKEY_ENABLED is off", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      expect(yield* describedFailureOf(startPasskeyRegistration(signedIn))).toBe(
        "passkey_disabled: Passkeys are disabled"
      )
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: false, maxPerUser: 10, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )
})
