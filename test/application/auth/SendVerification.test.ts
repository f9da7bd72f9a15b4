import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { sendPhoneOtp } from "../../../application/auth/PhoneOtp.js"
import { recover } from "../../../application/auth/Recover.js"
import * as SendVerification from "../../../application/auth/SendVerification.js"
import { signup } from "../../../application/auth/Signup.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { failureOf } from "./support/Failure.js"

/**
 * What every use case that sends a verification shares, seen through the use cases: the
 * service-wide quotas of mails and texts, and the even timing of the answers that must not tell
 * whether an address has an account.
 */

const magicLink = (email: string, createUser = true) =>
  sendMagicLink({ email, createUser, data: {}, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })

const hourly = (max: number) => ({ max, window: Duration.hours(1) })

const phoneOtp = (phone: string) => sendPhoneOtp({ phone, createUser: true, data: {}, channel: "" })

describe("RATE_LIMIT_EMAIL_SENT and RATE_LIMIT_SMS_SENT, on memory adapters under TestClock", () => {
  it.effect("at most the cap of mails an hour, all users together; the next hour has its own", () =>
    Effect.gen(function* () {
      const outcomes: Array<string> = []
      for (let n = 0; n < 4; n++) outcomes.push(yield* failureOf(magicLink(`user${n}@example.com`)))
      expect(outcomes).toEqual(["ok", "ok", "ok", "over_email_send_rate_limit"])
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* failureOf(magicLink("user9@example.com"))).toBe("ok")
    }).pipe(
      Effect.provide(
        MemoryServices.layer({
          mailerAutoconfirm: false,
          limits: { emailSent: hourly(3), smsSent: hourly(1_000) }
        })
      )
    )
  )

  it.effect("at most the cap of texts an hour; a refused request texts nothing and writes no user", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(phoneOtp("+15550000001"))).toBe("ok")
      expect(yield* failureOf(phoneOtp("+15550000002"))).toBe("ok")
      expect(yield* failureOf(phoneOtp("+15550000003"))).toBe("over_sms_send_rate_limit")
      expect(yield* SentTexts.codesTo("+15550000003")).toEqual([])
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* failureOf(phoneOtp("+15550000003"))).toBe("ok")
      expect(yield* SentTexts.codesTo("+15550000003")).toHaveLength(1)
    }).pipe(
      Effect.provide(
        MemoryServices.layer({
          smsAutoconfirm: false,
          limits: { emailSent: hourly(1_000), smsSent: hourly(2) }
        })
      )
    )
  )

  it.effect("texts to test numbers and under SMS_AUTOCONFIRM are not counted, as in Supabase Auth", () =>
    Effect.gen(function* () {
      for (let n = 0; n < 3; n++) expect(yield* failureOf(phoneOtp("+15550000100"))).toBe("ok")
    }).pipe(
      Effect.provide(
        MemoryServices.layer({
          smsAutoconfirm: true,
          limits: { emailSent: hourly(1_000), smsSent: hourly(1) },
          sms: {
            codeLength: 6,
            lifetime: Duration.minutes(1),
            // No spacing: the same number may be texted at once again.
            spacing: Duration.zero,
            text: (code) => `Your code is ${code}`,
            testCode: () => Option.none()
          }
        })
      )
    )
  )
})

const timed = MemoryServices.layer({ mailerAutoconfirm: false, answerFloor: SendVerification.answerFloor })

/** Whether `effect` has answered after `elapsed` of TestClock time, and once `floor` has passed. */
const answeredAfter = <A, E, R>(effect: Effect.Effect<A, E, R>, elapsed: Duration.Duration) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.exit(effect))
    yield* TestClock.adjust(elapsed)
    const early = Option.isSome(yield* Fiber.poll(fiber))
    yield* TestClock.adjust(Duration.subtract(SendVerification.answerFloor, elapsed))
    const onTime = Option.isSome(yield* Fiber.poll(fiber))
    yield* Fiber.join(fiber)
    return { early, onTime }
  })

describe("answers that do not tell whether an address has an account take the same time", () => {
  it.effect(
    "a recovery mail queued for a user and nothing for nobody: both answer at the floor, not before",
    () =>
      Effect.gen(function* () {
        yield* signup(MemoryServices.emailSignup("known@example.com", "a long enough password"))
        const almost = Duration.subtract(SendVerification.answerFloor, Duration.millis(1))
        for (const email of ["known@example.com", "nobody@example.com"]) {
          expect(
            yield* answeredAfter(
              recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" }),
              almost
            )
          ).toEqual({
            early: false,
            onTime: true
          })
        }
        for (const email of ["known@example.com", "nobody@example.com"]) {
          expect(yield* answeredAfter(magicLink(email, false), almost)).toEqual({
            early: false,
            onTime: true
          })
        }
        // A refusal (asked again within SMTP_MAX_FREQUENCY) is no quicker.
        expect(
          yield* answeredAfter(
            recover({
              email: "known@example.com",
              redirectTo: "",
              codeChallenge: "",
              codeChallengeMethod: ""
            }),
            almost
          )
        ).toEqual({ early: false, onTime: true })
      }).pipe(Effect.provide(timed))
  )
})
