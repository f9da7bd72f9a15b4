import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { passkeySignIn } from "../../../application/auth/PasskeySignIn.js"
import { PasskeyStore } from "../../../application/auth/ports/PasskeyStore.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { signedInUser, world } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { assertion, authenticator, registered, signedInWith } from "./support/Passkeys.js"
import { client } from "./support/Scenarios.js"

const present = (challengeId: string, credential: unknown) =>
  passkeySignIn({ challengeId, credential: Option.some(credential), client })

describe("PasskeySignIn (POST /passkeys/authentication/verify), on memory adapters", () => {
  it.effect(
    "signs the passkey's user in with a new aal1 session whose AMR is passkey, and records the use",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
        const signedIn = yield* signedInUser()
        const device = authenticator()
        const passkey = yield* registered(signedIn, device)
        yield* TestClock.adjust(Duration.minutes(1))
        const grant = yield* signedInWith(device)
        expect(grant.user.id).toBe(signedIn.user.id)
        expect([grant.session.aal, grant.session.amr.map((entry) => entry.method)]).toEqual([
          "aal1",
          ["passkey"]
        ])
        expect(Option.map(signedIn.session, (session) => session.id)).not.toEqual(
          Option.some(grant.session.id)
        )
        const claims = (yield* Authenticate.user(Redacted.value(grant.access.token))).claims
        expect([claims.aal, claims.amr?.map((entry) => entry.method)]).toEqual(["aal1", ["passkey"]])
        const [stored] = yield* Effect.flatMap(PasskeyStore, (store) => store.list(signedIn.user.id))
        expect([stored?.id, stored?.signCount, stored?.lastUsedAt]).toEqual([
          passkey.id,
          2,
          Option.some(new Date("2026-03-01T10:01:00Z"))
        ])
      }).pipe(Effect.provide(world()))
  )

  it.effect("refuses a replayed assertion, and one whose counter went backwards", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const device = authenticator()
      yield* registered(signedIn, device)
      const answer = yield* assertion(device)
      expect(yield* failureOf(present(answer.challengeId, answer.credential))).toBe("ok")
      // The same assertion again: its challenge is spent.
      expect(yield* failureOf(present(answer.challengeId, answer.credential))).toBe(
        "webauthn_challenge_not_found"
      )
      // A clone of the authenticator, its counter behind the stored one, answering a fresh challenge.
      const cloneHeld = device.credentials[0]
      if (cloneHeld !== undefined) cloneHeld.counter = 1
      const stale = yield* assertion(device)
      expect(yield* describedFailureOf(present(stale.challengeId, stale.credential))).toBe(
        "webauthn_verification_failed: Credential verification failed"
      )
    }).pipe(Effect.provide(world()))
  )

  it.effect("binds the credential to the user its handle names", () =>
    Effect.gen(function* () {
      const victim = yield* signedInUser()
      const attacker = yield* signedInUser()
      const device = authenticator()
      yield* registered(attacker, device)
      // The attacker's own credential, its user handle rewritten to name the victim.
      const answer = yield* assertion(device)
      const forged = {
        ...answer.credential,
        response: {
          ...answer.credential.response,
          userHandle: Buffer.from(victim.user.id).toString("base64url")
        }
      }
      expect(yield* failureOf(present(answer.challengeId, forged))).toBe("webauthn_verification_failed")
      const noHandle = yield* assertion(device)
      const { userHandle: _, ...withoutHandle } = noHandle.credential.response
      expect(
        yield* failureOf(present(noHandle.challengeId, { ...noHandle.credential, response: withoutHandle }))
      ).toBe("webauthn_verification_failed")
      const unknown = yield* assertion(device)
      const nobody = {
        ...unknown.credential,
        response: {
          ...unknown.credential.response,
          userHandle: Buffer.from(crypto.randomUUID()).toString("base64url")
        }
      }
      expect(yield* failureOf(present(unknown.challengeId, nobody))).toBe("webauthn_verification_failed")
    }).pipe(Effect.provide(world()))
  )

  it.effect(
    "refuses bad input, unknown and expired challenges, a wrong origin, and a registration challenge",
    () =>
      Effect.gen(function* () {
        const signedIn = yield* signedInUser()
        const device = authenticator()
        yield* registered(signedIn, device)
        expect(
          yield* describedFailureOf(passkeySignIn({ challengeId: "", credential: Option.none(), client }))
        ).toBe("validation_failed: challenge_id is required")
        expect(yield* describedFailureOf(present("nope", {}))).toBe(
          "validation_failed: challenge_id must be a valid UUID"
        )
        expect(yield* failureOf(present(crypto.randomUUID(), {}))).toBe("webauthn_challenge_not_found")
        const malformed = yield* assertion(device)
        expect(yield* describedFailureOf(present(malformed.challengeId, "garbage"))).toBe(
          "webauthn_verification_failed: Invalid credential response"
        )
        const elsewhere = yield* assertion(device, { origin: "http://localhost:4000" })
        expect(yield* failureOf(present(elsewhere.challengeId, elsewhere.credential))).toBe(
          "webauthn_verification_failed"
        )
        const late = yield* assertion(device)
        yield* TestClock.adjust(Duration.sum(Passkey.defaultChallengeLifetime, Duration.seconds(1)))
        expect(yield* describedFailureOf(present(late.challengeId, late.credential))).toBe(
          "webauthn_challenge_expired: Challenge has expired"
        )
      }).pipe(Effect.provide(world()))
  )

  it.effect("refuses a user whose address is not confirmed, or who is banned, with 403s", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const device = authenticator()
      yield* registered(signedIn, device)
      const users = yield* UserRepository
      const now = new Date(yield* TestClock.currentTimeMillis)
      yield* users.update(
        signedIn.user.id,
        { bannedUntil: Option.some(new Date(now.getTime() + 3_600_000)) },
        now
      )
      const banned = yield* assertion(device)
      expect(yield* describedFailureOf(present(banned.challengeId, banned.credential))).toBe(
        "user_banned: User is banned"
      )
      yield* users.update(
        signedIn.user.id,
        { bannedUntil: Option.none(), emailConfirmedAt: Option.none() },
        now
      )
      const unconfirmed = yield* assertion(device)
      expect(yield* describedFailureOf(present(unconfirmed.challengeId, unconfirmed.credential))).toBe(
        "email_not_confirmed: Email not confirmed"
      )
    }).pipe(Effect.provide(world()))
  )
})
