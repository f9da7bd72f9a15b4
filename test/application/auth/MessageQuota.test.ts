import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { sendPhoneOtp } from "../../../application/auth/PhoneOtp.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { failureOf } from "./support/Failure.js"

const hourly = (max: number) => ({ max, window: Duration.hours(1) })

const magicLink = (email: string) =>
  sendMagicLink({
    email,
    createUser: true,
    data: {},
    redirectTo: "",
    codeChallenge: "",
    codeChallengeMethod: ""
  })

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
