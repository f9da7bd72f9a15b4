import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { sendPhoneOtp } from "../../../application/auth/PhoneOtp.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { failureOf } from "./support/Failure.js"

const number = () => `1555${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`

const asking = (phone: string, createUser = true) =>
  sendPhoneOtp({ phone, createUser, data: {}, channel: "" })

describe("PhoneOtp (POST /otp with a phone), on memory adapters", () => {
  it.effect("texts a code to a new number; without create_user an unknown number gets nothing", () =>
    Effect.gen(function* () {
      const phone = number()
      const sent = yield* asking(phone)
      // The number's user is new and unconfirmed: no message id is told.
      expect(Option.isNone(sent.messageId)).toBe(true)
      const codes = yield* SentTexts.codesTo(phone)
      expect(codes).toHaveLength(1)
      expect(codes[0]).toMatch(/^\d{6}$/)
      const nobody = number()
      expect(yield* failureOf(asking(nobody, false))).toBe("ok")
      expect(yield* SentTexts.codesTo(nobody)).toEqual([])
    }).pipe(Effect.provide(MemoryServices.layer({ smsAutoconfirm: false })))
  )

  it.effect("refuses while phone sign-in is off, and a new number while sign-ups are", () =>
    Effect.gen(function* () {
      const refused = (overrides: Parameters<typeof MemoryServices.layer>[0]) =>
        failureOf(asking(number())).pipe(Effect.provide(MemoryServices.layer(overrides)))
      expect(yield* refused({ phoneEnabled: false })).toBe("phone_provider_disabled")
      expect(yield* refused({ disableSignup: true })).toBe("signup_disabled")
      expect(yield* failureOf(asking("not a number")).pipe(Effect.provide(MemoryServices.layer()))).toBe(
        "validation_failed"
      )
    })
  )
})
