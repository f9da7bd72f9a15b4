import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Textlocal from "../../../adapters/sms/auth/Textlocal.js"
import { type SmsMessage, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as FakeTextlocal from "../../support/auth/sms/FakeTextlocal.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const settings = (
  baseUrl: string,
  overrides: Partial<Textlocal.TextlocalSettings> = {}
): Textlocal.TextlocalSettings => ({
  apiKey: Redacted.make(FakeTextlocal.apiKey),
  sender: FakeTextlocal.sender,
  baseUrl,
  // The fakes listen on 127.0.0.1, which the outbound guard refuses unless the operator's list names it.
  allowedPrivateAddresses: Allowed.localhost,
  ...overrides
})

const text: SmsMessage = {
  to: "447123456789",
  body: "Your code is 123456",
  channel: "sms",
  code: Redacted.make("123456")
}

describe("Textlocal", () => {
  it.scoped("sends the text to the number without + and returns the id of the message sent", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTextlocal.start
      const sender = Textlocal.make(settings(fake.origin))
      expect(yield* sender.send(text)).toBe(FakeTextlocal.messageId)
      expect(Object.fromEntries(fake.received()[0]?.form ?? [])).toEqual({
        apikey: FakeTextlocal.apiKey,
        sender: FakeTextlocal.sender,
        numbers: "447123456789",
        message: "Your code is 123456"
      })
      expect(sender.provider).toBe("textlocal")
      expect(sender.supports("whatsapp")).toBe(false)
      expect(Option.isNone(sender.check)).toBe(true)
    })
  )

  describe("failures", () => {
    it.scoped("reads status failure as a refusal, with the message of Textlocal's first error", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTextlocal.start
        fake.answer("refuse")
        const error = yield* Effect.flip(Textlocal.make(settings(fake.origin)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: FakeTextlocal.refusalMessage }))
      })
    )

    it.scoped("refuses on a wrong API key with Textlocal's words, not the key", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTextlocal.start
        const sender = Textlocal.make(settings(fake.origin, { apiKey: Redacted.make("wrong-key") }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error.message).toBe("Invalid login details")
      })
    )

    it.scoped("reports a 5xx page by its status", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTextlocal.start
        fake.answer("badGateway")
        const error = yield* Effect.flip(Textlocal.make(settings(fake.origin)).send(text))
        expect(error.message).toBe("Textlocal answered 502")
      })
    )

    it.effect("refuses when nothing listens at the gateway's address", () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const error = yield* Effect.flip(Textlocal.make(settings(`http://127.0.0.1:${port}`)).send(text))
        expect(error.message).toBe("could not reach Textlocal (ECONNREFUSED)")
      })
    )
  })
})
