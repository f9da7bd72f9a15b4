import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { challengeAs, enrolled, services, signedInAs } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { client, signedUp } from "./support/Scenarios.js"

const ip = "192.0.2.1"
const request = (factorId: string, channel = "") => ({ factorId, channel, ipAddress: ip })

describe("ChallengeFactor, on memory adapters under TestClock", () => {
  it.effect("a TOTP challenge answers its id, type and expiry, and stamps the factor", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(Duration.days(1))
      const signedIn = yield* signedInAs(yield* signedUp())
      const { factor } = yield* enrolled(signedIn.user.id, "totp")
      const challenged = yield* challengeAs(signedIn, request(factor.id))
      const now = Duration.toMillis(Duration.days(1))
      expect(challenged.type).toBe("totp")
      expect(challenged.expiresAt).toBe(Math.floor(now / 1000) + 300)
      const stored = yield* Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factor.id))
      expect(Option.flatMap(stored, (found) => found.factor.lastChallengedAt)).toEqual(
        Option.some(new Date(now))
      )
      const challenge = yield* Effect.flatMap(FactorStore, (store) =>
        store.findChallenge(factor.id, challenged.id)
      )
      expect(Option.map(challenge, (found) => found.ipAddress)).toEqual(Option.some(ip))
    }).pipe(Effect.provide(services()))
  )

  it.effect("MFA_CHALLENGE_EXPIRY_DURATION sets expires_at (never under 300 s)", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const { factor } = yield* enrolled(signedIn.user.id, "totp")
      expect((yield* challengeAs(signedIn, request(factor.id))).expiresAt).toBe(900)
    }).pipe(Effect.provide(services({}, { challengeLifetime: Duration.minutes(15) })))
  )

  it.effect("another user's factor, a malformed id, an anonymous user: GoTrue's refusals", () =>
    Effect.gen(function* () {
      const owner = yield* signedInAs(yield* signedUp())
      const other = yield* signedInAs(yield* signedUp())
      const { factor } = yield* enrolled(owner.user.id, "totp")
      expect(yield* describedFailureOf(challengeAs(other, request(factor.id)))).toBe(
        "mfa_factor_not_found: Factor not found"
      )
      expect(yield* describedFailureOf(challengeAs(owner, request("not-a-uuid")))).toBe(
        "validation_failed: factor_id must be an UUID"
      )
      const anonymous = yield* signedInAs(yield* signInAnonymously({}, client))
      expect(yield* describedFailureOf(challengeAs(anonymous, request(factor.id)))).toBe(
        "no_authorization: Anonymous user not allowed to perform these actions"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("MFA_TOTP_VERIFY_ENABLED off refuses the challenge", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const { factor } = yield* enrolled(signedIn.user.id, "totp")
      expect(yield* failureOf(challengeAs(signedIn, request(factor.id)))).toBe("mfa_totp_verify_not_enabled")
    }).pipe(
      Effect.provide(
        services(
          {},
          {
            switches: {
              totp: { enroll: true, verify: false },
              phone: { enroll: true, verify: true },
              webauthn: { enroll: true, verify: true },
              recovery_code: { enroll: true, verify: true }
            }
          }
        )
      )
    )
  )

  it.effect("a phone challenge texts a code, at most once per MFA_PHONE_MAX_FREQUENCY", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const phone = "15555550123"
      const { factor } = yield* enrolled(signedIn.user.id, "phone", { phone })
      const first = yield* challengeAs(signedIn, request(factor.id, "sms"))
      expect(first.type).toBe("phone")
      const codes = yield* SentTexts.codesTo(phone)
      expect(codes).toHaveLength(1)
      expect(codes[0]).toMatch(/^\d{6}$/)
      yield* TestClock.adjust(Duration.seconds(20))
      expect(yield* describedFailureOf(challengeAs(signedIn, request(factor.id)))).toBe(
        "over_sms_send_rate_limit: For security purposes, you can only request this after 40 seconds."
      )
      expect(yield* SentTexts.codesTo(phone)).toHaveLength(1)
      yield* TestClock.adjust(Duration.seconds(41))
      yield* challengeAs(signedIn, request(factor.id))
      expect(yield* SentTexts.codesTo(phone)).toHaveLength(2)
      expect(yield* failureOf(challengeAs(signedIn, request(factor.id, "carrier-pigeon")))).toBe(
        "validation_failed"
      )
    }).pipe(Effect.provide(services()))
  )
})
