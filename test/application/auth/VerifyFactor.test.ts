import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as DatabaseEncryption from "../../../adapters/crypto/auth/DatabaseEncryption.js"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import { StepUps } from "../../../application/auth/ports/StepUps.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import type { FactorId } from "../../../domain/auth/Factor.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import {
  atRestKeys,
  challengeAs,
  codeNow,
  enrolled,
  services,
  signedInAs,
  verifyAs
} from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { client, freshEmail, mailsTo, password, signedUp, standing } from "./support/Scenarios.js"

const ip = "192.0.2.1"

/** The one code a Twilio Verify-like gateway of these tests takes. */
const verifyGatewayCode = "424242"

/** A challenge of the factor from `ip`, and a verify of it with `code` from `from`. */
const challengeAndVerify = (signedIn: SignedIn, factorId: FactorId, code: string, from = ip) =>
  Effect.gen(function* () {
    const challenge = yield* challengeAs(signedIn, { factorId, channel: "", ipAddress: ip })
    return yield* verifyAs(signedIn, { factorId, challengeId: challenge.id, code, ipAddress: from })
  })

/** A user signed up, a day into the clock (so that steps before now exist), with a TOTP factor. */
const withTotp = Effect.gen(function* () {
  yield* TestClock.adjust(Duration.days(1))
  const email = freshEmail()
  const grant = yield* signedUp(email)
  const signedIn = yield* signedInAs(grant)
  const { factor, secret } = yield* enrolled(signedIn.user.id, "totp")
  return { email, grant, signedIn, factor, secret }
})

describe("VerifyFactor, on memory adapters under TestClock", () => {
  it.effect("a right code verifies the factor and raises the session: aal2, amr, a new pair", () =>
    Effect.gen(function* () {
      const { factor, grant, secret, signedIn } = yield* withTotp
      const verified = yield* challengeAndVerify(signedIn, factor.id, yield* codeNow(secret))
      expect(verified.session.id).toBe(grant.session.id)
      const raised = yield* signedInAs(verified)
      expect(raised.claims.aal).toBe("aal2")
      const now = Math.floor(Duration.toMillis(Duration.days(1)) / 1000)
      expect(raised.claims.amr.map((entry) => [entry.method, entry.timestamp])).toEqual([
        ["totp", now],
        ["password", now]
      ])
      const stored = yield* Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factor.id))
      expect(Option.map(stored, (found) => found.factor.status)).toEqual(Option.some("verified"))
      // A refresh keeps aal2 and the methods, then and later.
      yield* TestClock.adjust(Duration.minutes(5))
      const refreshed = yield* refreshSession(Redacted.value(verified.refreshToken))
      const again = yield* refreshSession(Redacted.value(refreshed.refreshToken))
      const claims = (yield* signedInAs(again)).claims
      expect([claims.aal, claims.amr]).toEqual([raised.claims.aal, raised.claims.amr])
    }).pipe(Effect.provide(services()))
  )

  it.effect("a secret sealed at rest opens with its key; under a key not given, a 500 and no session", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(Duration.days(1))
      const grant = yield* signedUp(freshEmail())
      const signedIn = yield* signedInAs(grant)
      const sealed = yield* enrolled(signedIn.user.id, "totp", { sealedUnder: atRestKeys })
      const verified = yield* challengeAndVerify(
        signedIn,
        sealed.factor.id,
        yield* codeNow(sealed.secret)
      ).pipe(Effect.provide(DatabaseEncryption.layer(atRestKeys)))
      expect((yield* signedInAs(verified)).claims.aal).toBe("aal2")

      const other = yield* enrolled(signedIn.user.id, "totp", { sealedUnder: atRestKeys })
      const refused = yield* describedFailureOf(
        challengeAndVerify(signedIn, other.factor.id, yield* codeNow(other.secret)).pipe(
          Effect.provide(DatabaseEncryption.layer(DatabaseEncryption.none))
        )
      )
      expect(refused).toBe("unexpected_failure: Database error verifying MFA TOTP secret")
    }).pipe(Effect.provide(services()))
  )

  it.effect(
    "a secret in the clear or under an older key is resealed at its first use, code right or wrong",
    () =>
      Effect.gen(function* () {
        yield* TestClock.adjust(Duration.days(1))
        const signedIn = yield* signedInAs(yield* signedUp(freshEmail()))
        const older = new Uint8Array(32).fill(9)
        const rotated: DatabaseEncryption.Keys = {
          sealing: atRestKeys.sealing,
          opening: new Map([...atRestKeys.opening, ["key-0", older]])
        }
        const storedSecret = (factorId: FactorId) =>
          Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factorId)).pipe(
            Effect.map((found) => Option.getOrThrow(Option.flatMap(found, (one) => one.secret)))
          )
        const clear = yield* enrolled(signedIn.user.id, "totp")
        const underOlder = yield* enrolled(signedIn.user.id, "totp", {
          sealedUnder: { sealing: Option.some({ keyId: "key-0", key: older }), opening: new Map() }
        })
        // A wrong code for the one, a right one for the other: both are sealed under key-1 after.
        const wrong = yield* describedFailureOf(
          challengeAndVerify(signedIn, clear.factor.id, "000000").pipe(
            Effect.provide(DatabaseEncryption.layer(rotated))
          )
        )
        expect(wrong).toBe("mfa_verification_failed: Invalid TOTP code entered")
        yield* challengeAndVerify(signedIn, underOlder.factor.id, yield* codeNow(underOlder.secret)).pipe(
          Effect.provide(DatabaseEncryption.layer(rotated))
        )
        for (const { factor, secret } of [clear, underOlder]) {
          const kept = yield* storedSecret(factor.id)
          expect(JSON.parse(kept)).toMatchObject({ key_id: "key-1" })
          expect(yield* DatabaseEncryption.open(atRestKeys, factor.id, kept)).toBe(secret)
        }
        // Without a sealing key nothing is rewritten: a clear secret stays clear.
        const unsealed = yield* enrolled(signedIn.user.id, "totp")
        expect(yield* describedFailureOf(challengeAndVerify(signedIn, unsealed.factor.id, "000000"))).toBe(
          "mfa_verification_failed: Invalid TOTP code entered"
        )
        expect(yield* storedSecret(unsealed.factor.id)).toBe(unsealed.secret)
      }).pipe(Effect.provide(services()))
  )

  it.effect("the verify, the refreshes and a new sign-in answer with the user's factors", () =>
    Effect.gen(function* () {
      const { email, factor, grant, secret, signedIn } = yield* withTotp
      expect(grant.factors).toEqual([])
      // A second later: the factors are listed by creation.
      yield* TestClock.adjust(Duration.seconds(1))
      const other = yield* enrolled(signedIn.user.id, "phone", { phone: "15555550100" })
      const verified = yield* challengeAndVerify(signedIn, factor.id, yield* codeNow(secret))
      // Read after the verification: the factor is listed verified, oldest first.
      const listed = (answer: {
        readonly factors: ReadonlyArray<{ readonly id: string; readonly status: string }>
      }) => answer.factors.map((one) => [one.id, one.status])
      const expected = [
        [factor.id, "verified"],
        [other.factor.id, "unverified"]
      ]
      expect(listed(verified)).toEqual(expected)
      const refreshed = yield* refreshSession(Redacted.value(verified.refreshToken))
      expect(listed(refreshed)).toEqual(expected)
      const again = yield* signInWithPassword({ email, phone: "", password, client })
      expect(listed(again.grant)).toEqual(expected)
    }).pipe(Effect.provide(services()))
  )

  it.effect("the refresh token held before the verify is a reuse, inside the reuse interval too", () =>
    Effect.gen(function* () {
      const { factor, grant, secret, signedIn } = yield* withTotp
      const verified = yield* challengeAndVerify(signedIn, factor.id, yield* codeNow(secret))
      expect(yield* failureOf(refreshSession(Redacted.value(grant.refreshToken)))).toBe(
        "refresh_token_already_used"
      )
      // Reuse detection ended the session, the raised tokens with it.
      expect(yield* standing(verified)).toBe("session_not_found/refresh_token_not_found")
    }).pipe(Effect.provide(services()))
  )

  it.effect(
    "a step up of the session as its token's check read it is one step; of a moved one, the transaction's",
    () =>
      Effect.gen(function* () {
        const { factor, secret, signedIn } = yield* withTotp
        const first = yield* challengeAndVerify(signedIn, factor.id, yield* codeNow(secret))
        const inner = yield* StepUps
        const outcomes: Array<string> = []
        const counted = Layer.succeed(StepUps, {
          stepUp: (stepUp) =>
            Effect.tap(inner.stepUp(stepUp), (stepped) => Effect.sync(() => outcomes.push(stepped._tag)))
        })
        const stepUp = (caller: SignedIn) =>
          Effect.gen(function* () {
            yield* TestClock.adjust(Duration.seconds(30))
            const raised = yield* Effect.provide(
              challengeAndVerify(caller, factor.id, yield* codeNow(secret)),
              counted
            )
            return yield* signedInAs(raised)
          })
        // The caller as a request reads it, after the first verify: one step.
        const current = yield* signedInAs(first)
        const again = yield* stepUp(current)
        // The same caller once more: its session moved (the step up raised it), so the transaction
        // raises the session as it stands.
        const moved = yield* stepUp(current)
        expect(outcomes).toEqual(["Raised", "Moved"])
        for (const raised of [again, moved]) {
          expect([raised.claims.aal, raised.claims.amr.map((entry) => entry.method)]).toEqual([
            "aal2",
            ["totp", "password"]
          ])
        }
        expect(moved.claims.amr[0]?.timestamp).toBe((again.claims.amr[0]?.timestamp ?? 0) + 30)
      }).pipe(Effect.provide(services()))
  )

  it.effect("codes of the step before and after are accepted, none further, none twice", () =>
    Effect.gen(function* () {
      const { factor, secret, signedIn } = yield* withTotp
      for (const offset of [-2, 2]) {
        expect(
          yield* describedFailureOf(challengeAndVerify(signedIn, factor.id, yield* codeNow(secret, offset)))
        ).toBe("mfa_verification_failed: Invalid TOTP code entered")
      }
      const previous = yield* codeNow(secret, -1)
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, previous))).toBe("ok")
      // The same code, with a fresh challenge, within its window: refused.
      expect(yield* describedFailureOf(challengeAndVerify(signedIn, factor.id, previous))).toBe(
        "mfa_verification_failed: Invalid TOTP code entered"
      )
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, yield* codeNow(secret)))).toBe("ok")
      const next = yield* codeNow(secret, 1)
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, next))).toBe("ok")
      // Half a minute on, the code of what is now the current step was used already.
      yield* TestClock.adjust(Duration.seconds(30))
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, next))).toBe("mfa_verification_failed")
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, yield* codeNow(secret, 1)))).toBe("ok")
      expect(yield* failureOf(challengeAndVerify(signedIn, factor.id, "12345a"))).toBe(
        "mfa_verification_failed"
      )
      expect(yield* describedFailureOf(challengeAndVerify(signedIn, factor.id, ""))).toBe(
        "validation_failed: Code needs to be non-empty"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("a challenge expires after MFA_CHALLENGE_EXPIRY_DURATION and is single use", () =>
    Effect.gen(function* () {
      const { factor, secret, signedIn } = yield* withTotp
      const challenge = yield* challengeAs(signedIn, { factorId: factor.id, channel: "", ipAddress: ip })
      const verify = (code: string, from = ip) =>
        verifyAs(signedIn, { factorId: factor.id, challengeId: challenge.id, code, ipAddress: from })
      yield* TestClock.adjust(Duration.seconds(300))
      // Usable through its last instant; a wrong code leaves it usable.
      expect(yield* failureOf(verify("000000"))).toBe("mfa_verification_failed")
      expect(yield* failureOf(verify(yield* codeNow(secret), "198.51.100.7"))).toBe("mfa_ip_address_mismatch")
      expect(yield* failureOf(verify(yield* codeNow(secret)))).toBe("ok")
      expect(yield* failureOf(verify(yield* codeNow(secret, 1)))).toBe("mfa_ip_address_mismatch")

      const late = yield* challengeAs(signedIn, { factorId: factor.id, channel: "", ipAddress: ip })
      yield* TestClock.adjust(Duration.seconds(301))
      expect(
        yield* describedFailureOf(
          verifyAs(signedIn, { factorId: factor.id, challengeId: late.id, code: "000000", ipAddress: ip })
        )
      ).toBe(
        `mfa_challenge_expired: MFA challenge ${late.id} has expired, verify against another challenge or create a new challenge.`
      )
      // Deleted when found expired.
      expect(
        yield* failureOf(
          verifyAs(signedIn, { factorId: factor.id, challengeId: late.id, code: "000000", ipAddress: ip })
        )
      ).toBe("mfa_factor_not_found")
    }).pipe(Effect.provide(services()))
  )

  it.effect("another factor's challenge, another user's factor, a missing factor: not found", () =>
    Effect.gen(function* () {
      const { factor, secret, signedIn } = yield* withTotp
      const second = yield* enrolled(signedIn.user.id, "totp")
      const challenge = yield* challengeAs(signedIn, {
        factorId: second.factor.id,
        channel: "",
        ipAddress: ip
      })
      const code = yield* codeNow(secret)
      expect(
        yield* describedFailureOf(
          verifyAs(signedIn, { factorId: factor.id, challengeId: challenge.id, code, ipAddress: ip })
        )
      ).toBe("mfa_factor_not_found: MFA factor with the provided challenge ID not found")
      expect(
        yield* failureOf(verifyAs(signedIn, { factorId: factor.id, challengeId: "x", code, ipAddress: ip }))
      ).toBe("mfa_factor_not_found")
      const stranger = yield* signedInAs(yield* signedUp())
      expect(
        yield* describedFailureOf(
          verifyAs(stranger, {
            factorId: second.factor.id,
            challengeId: challenge.id,
            code,
            ipAddress: ip
          })
        )
      ).toBe("mfa_factor_not_found: Factor not found")
      expect(
        yield* failureOf(
          verifyAs(signedIn, {
            factorId: crypto.randomUUID(),
            challengeId: challenge.id,
            code,
            ipAddress: ip
          })
        )
      ).toBe("mfa_factor_not_found")
    }).pipe(Effect.provide(services()))
  )

  it.effect("50 concurrent verifies of one challenge: exactly one session is raised", () =>
    Effect.gen(function* () {
      const { factor, grant, secret, signedIn } = yield* withTotp
      const challenge = yield* challengeAs(signedIn, { factorId: factor.id, channel: "", ipAddress: ip })
      const code = yield* codeNow(secret)
      const results = yield* Effect.all(
        Array.from({ length: 50 }, () =>
          failureOf(
            verifyAs(signedIn, { factorId: factor.id, challengeId: challenge.id, code, ipAddress: ip })
          )
        ),
        { concurrency: "unbounded" }
      )
      expect(results.filter((result) => result === "ok")).toHaveLength(1)
      expect(new Set(results.filter((result) => result !== "ok"))).toEqual(
        new Set(["mfa_ip_address_mismatch"])
      )
      const session = yield* Effect.flatMap(SessionStore, (sessions) => sessions.findById(grant.session.id))
      expect(Option.map(session, (found) => [found.aal, found.generation])).toEqual(Option.some(["aal2", 2]))
    }).pipe(Effect.provide(services()))
  )

  it.effect("the first verify queues the enrolled mail when it is on; other aal1 sessions end", () =>
    Effect.gen(function* () {
      const { email, factor, grant, secret, signedIn } = yield* withTotp
      const other = (yield* signInWithPassword({ email, phone: "", password, client })).grant
      const unverified = yield* enrolled(signedIn.user.id, "totp")
      // The next request's access token check reads the user's factors as they are now.
      const current = yield* signedInAs(grant)
      yield* challengeAndVerify(current, factor.id, yield* codeNow(secret))
      yield* challengeAndVerify(current, factor.id, yield* codeNow(secret, 1))
      const mails = (yield* mailsTo(email)).filter((mail) => mail.kind === "mfa_factor_enrolled_notification")
      expect(mails.map((mail) => mail.variables.FactorType)).toEqual(["totp"])
      expect(yield* standing(other)).toBe("session_not_found/refresh_token_not_found")
      // The user's other unverified TOTP factor went with the verify, as in Supabase Auth.
      const left = yield* Effect.flatMap(FactorStore, (store) =>
        store.find(signedIn.user.id, unverified.factor.id)
      )
      expect(left).toEqual(Option.none())
    }).pipe(Effect.provide(services({ notifications: new Set(["mfa_factor_enrolled_notification"]) })))
  )

  it.effect("no mail when the notification is off", () =>
    Effect.gen(function* () {
      const { email, factor, secret, signedIn } = yield* withTotp
      yield* challengeAndVerify(signedIn, factor.id, yield* codeNow(secret))
      expect(
        (yield* mailsTo(email)).filter((mail) => mail.kind === "mfa_factor_enrolled_notification")
      ).toEqual([])
    }).pipe(Effect.provide(services()))
  )

  it.effect("a phone factor verifies with the texted code, wrong codes refused", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const phone = "15555550199"
      const { factor } = yield* enrolled(signedIn.user.id, "phone", { phone })
      const challenge = yield* challengeAs(signedIn, {
        factorId: factor.id,
        channel: "sms",
        ipAddress: ip
      })
      const [code] = yield* SentTexts.codesTo(phone)
      const verify = (text: string) =>
        verifyAs(signedIn, { factorId: factor.id, challengeId: challenge.id, code: text, ipAddress: ip })
      const wrong = code === "000000" ? "111111" : "000000"
      expect(yield* describedFailureOf(verify(wrong))).toBe(
        "mfa_verification_failed: Invalid MFA Phone code entered"
      )
      const verified = yield* verify(code ?? "")
      const claims = (yield* signedInAs(verified)).claims
      expect([claims.aal, claims.amr[0]?.method]).toEqual(["aal2", "mfa/phone"])
    }).pipe(Effect.provide(services()))
  )
  it.effect("under a gateway that keeps its own codes (Twilio Verify), its verdict decides", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInAs(yield* signedUp())
      const phone = "15555550198"
      const { factor } = yield* enrolled(signedIn.user.id, "phone", { phone })
      const challenge = yield* challengeAs(signedIn, { factorId: factor.id, channel: "sms", ipAddress: ip })
      const verify = (text: string) =>
        verifyAs(signedIn, { factorId: factor.id, challengeId: challenge.id, code: text, ipAddress: ip })
      // The gateway texted a code of its own; the one this service made is not it.
      const [ours] = yield* SentTexts.codesTo(phone)
      expect(yield* describedFailureOf(verify(ours ?? ""))).toBe(
        "otp_expired: Token has expired or is invalid"
      )
      const verified = yield* verify(verifyGatewayCode)
      expect((yield* signedInAs(verified)).claims.aal).toBe("aal2")
    }).pipe(
      Effect.provideServiceEffect(
        SmsSender,
        Effect.map(SmsSender, (memory) => ({
          ...memory,
          provider: "twilio_verify",
          check: Option.some((_to: string, code: Redacted.Redacted<string>) =>
            Effect.succeed(Redacted.value(code) === verifyGatewayCode)
          )
        }))
      ),
      Effect.provide(services())
    )
  )
})
