import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Vonage from "../../../adapters/sms/auth/Vonage.js"
import { type SmsMessage, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as FakeVonage from "../../support/auth/sms/FakeVonage.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const settings = (
  baseUrl: string,
  overrides: Partial<Vonage.VonageSettings> = {}
): Vonage.VonageSettings => ({
  apiKey: FakeVonage.apiKey,
  apiSecret: Redacted.make(FakeVonage.apiSecret),
  from: FakeVonage.from,
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

describe("Vonage", () => {
  it.scoped("sends the text to the number without + and returns Vonage's message id", () =>
    Effect.gen(function* () {
      const fake = yield* FakeVonage.start
      const sender = Vonage.make(settings(fake.origin))
      expect(yield* sender.send(text)).toBe(FakeVonage.messageId)
      expect(Object.fromEntries(fake.received()[0]?.form ?? [])).toEqual({
        api_key: FakeVonage.apiKey,
        api_secret: FakeVonage.apiSecret,
        from: FakeVonage.from,
        to: "15555550100",
        text: "Your code is 123456"
      })
      expect(sender.provider).toBe("vonage")
      expect(sender.supports("whatsapp")).toBe(false)
      expect(Option.isNone(sender.check)).toBe(true)
    })
  )

  it.scoped("asks for unicode when the text is not ASCII", () =>
    Effect.gen(function* () {
      const fake = yield* FakeVonage.start
      yield* Vonage.make(settings(fake.origin)).send({ ...text, body: "Votre code : 123456 ✓" })
      expect(fake.received()[0]?.form.get("type")).toBe("unicode")
    })
  )

  describe("failures", () => {
    it.scoped("reads a 200 whose message status is not 0 as a refusal, with Vonage's error-text", () =>
      Effect.gen(function* () {
        const fake = yield* FakeVonage.start
        fake.answer("refuse")
        const error = yield* Effect.flip(Vonage.make(settings(fake.origin)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: FakeVonage.refusalMessage }))
      })
    )

    it.scoped("refuses on a wrong secret with Vonage's words, not the secret", () =>
      Effect.gen(function* () {
        const fake = yield* FakeVonage.start
        const sender = Vonage.make(settings(fake.origin, { apiSecret: Redacted.make("wrong-secret") }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error.message).toBe("Bad Credentials")
      })
    )

    it.scoped("reports an answer without any message status, and a 5xx page", () =>
      Effect.gen(function* () {
        const fake = yield* FakeVonage.start
        const sender = Vonage.make(settings(fake.origin))
        fake.answer("empty")
        expect((yield* Effect.flip(sender.send(text))).message).toBe(
          "Vonage answered 200 with a body it does not document"
        )
        fake.answer("badGateway")
        expect((yield* Effect.flip(sender.send(text))).message).toBe("Vonage answered 502")
      })
    )

    it.effect("refuses when nothing listens at the gateway's address", () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const error = yield* Effect.flip(Vonage.make(settings(`http://127.0.0.1:${port}`)).send(text))
        expect(error.message).toBe("could not reach Vonage (ECONNREFUSED)")
      })
    )
  })
})
