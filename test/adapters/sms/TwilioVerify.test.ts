import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TwilioVerify from "../../../adapters/sms/auth/TwilioVerify.js"
import { type SmsMessage, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as FakeTwilioVerify from "../../support/auth/sms/FakeTwilioVerify.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const settings = (
  baseUrl: string,
  overrides: Partial<TwilioVerify.TwilioVerifySettings> = {}
): TwilioVerify.TwilioVerifySettings => ({
  accountSid: FakeTwilioVerify.accountSid,
  authToken: Redacted.make(FakeTwilioVerify.authToken),
  serviceSid: FakeTwilioVerify.serviceSid,
  baseUrl,
  // The fakes listen on 127.0.0.1, which the outbound guard refuses unless the operator's list names it.
  allowedPrivateAddresses: Allowed.localhost,
  ...overrides
})

const text: SmsMessage = {
  to: "15555550100",
  body: "Your code is 123456",
  channel: "sms",
  code: Redacted.make("123456")
}

/** The gateway's `check`, which Verify has. */
const checkOf = (sender: ReturnType<typeof TwilioVerify.make>) =>
  Option.getOrThrowWith(sender.check, () => new Error("Twilio Verify checks its own codes"))

const lastForm = (fake: { received: () => ReadonlyArray<{ form: URLSearchParams }> }) =>
  Object.fromEntries(fake.received().at(-1)?.form ?? [])

describe("Twilio Verify", () => {
  it.scoped("starts a verification on the channel asked for and returns its SID; its code is Verify's", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTwilioVerify.start
      const sender = TwilioVerify.make(settings(fake.origin))
      expect(sender.provider).toBe("twilio_verify")
      expect(yield* sender.send(text)).toBe(FakeTwilioVerify.verificationSid)
      expect(lastForm(fake)).toEqual({ To: "+15555550100", Channel: "sms" })
      expect(yield* sender.send({ ...text, channel: "whatsapp" })).toBe(FakeTwilioVerify.verificationSid)
      expect(lastForm(fake)).toEqual({ To: "+15555550100", Channel: "whatsapp" })
    })
  )

  it.scoped("checks a code: approved for the code Verify sent, not for another", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTwilioVerify.start
      const check = checkOf(TwilioVerify.make(settings(fake.origin)))
      expect(yield* check("15555550100", Redacted.make(FakeTwilioVerify.code))).toBe(true)
      expect(lastForm(fake)).toEqual({ To: "+15555550100", Code: FakeTwilioVerify.code })
      expect(yield* check("15555550100", Redacted.make("000000"))).toBe(false)
    })
  )

  it.scoped("reads a verification that is gone or out of attempts as not approved", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTwilioVerify.start
      const check = checkOf(TwilioVerify.make(settings(fake.origin)))
      fake.answer("expired")
      expect(yield* check("15555550100", Redacted.make(FakeTwilioVerify.code))).toBe(false)
      fake.answer("exhausted")
      expect(yield* check("15555550100", Redacted.make(FakeTwilioVerify.code))).toBe(false)
    })
  )

  describe("failures", () => {
    it.scoped("passes Verify's own message on when it refuses the number", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilioVerify.start
        fake.answer("refuse")
        const error = yield* Effect.flip(TwilioVerify.make(settings(fake.origin)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: FakeTwilioVerify.refusalMessage }))
      })
    )

    it.scoped("fails a check that Twilio refuses, rather than reading it as a wrong code", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilioVerify.start
        fake.answer("denied")
        const error = yield* Effect.flip(
          checkOf(TwilioVerify.make(settings(fake.origin)))("+15555550100", Redacted.make("123456"))
        )
        expect(error).toEqual(new SmsSendFailed({ message: "Authenticate" }))
      })
    )

    it.scoped("reports a 5xx page by its status", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilioVerify.start
        fake.answer("badGateway")
        const sender = TwilioVerify.make(settings(fake.origin))
        expect((yield* Effect.flip(sender.send(text))).message).toBe("Twilio Verify answered 502")
        expect((yield* Effect.flip(checkOf(sender)("15555550100", Redacted.make("1"))))._tag).toBe(
          "SmsSendFailed"
        )
      })
    )

    it.effect("refuses when nothing listens at the gateway's address", () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const sender = TwilioVerify.make(settings(`http://127.0.0.1:${port}`))
        const error = yield* Effect.flip(sender.send(text))
        expect(error.message).toBe("could not reach Twilio Verify (ECONNREFUSED)")
        const checked = yield* Effect.flip(checkOf(sender)("15555550100", Redacted.make("123456")))
        expect(checked.message).toBe("could not reach Twilio Verify (ECONNREFUSED)")
      })
    )
  })
})
