import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as MessageBird from "../../../adapters/sms/auth/MessageBird.js"
import { type SmsMessage, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as FakeMessageBird from "../../support/auth/sms/FakeMessageBird.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const settings = (
  baseUrl: string,
  overrides: Partial<MessageBird.MessageBirdSettings> = {}
): MessageBird.MessageBirdSettings => ({
  accessKey: Redacted.make(FakeMessageBird.accessKey),
  originator: FakeMessageBird.originator,
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

describe("MessageBird", () => {
  it.scoped("sends the text to the number without + and returns MessageBird's id", () =>
    Effect.gen(function* () {
      const fake = yield* FakeMessageBird.start
      const sender = MessageBird.make(settings(fake.origin))
      expect(yield* sender.send(text)).toBe(FakeMessageBird.messageId)
      expect(Object.fromEntries(fake.received()[0]?.form ?? [])).toEqual({
        originator: FakeMessageBird.originator,
        body: "Your code is 123456",
        recipients: "15555550100",
        type: "sms",
        datacoding: "auto"
      })
      expect(sender.provider).toBe("messagebird")
      expect(Option.isNone(sender.check)).toBe(true)
    })
  )

  it.scoped("delivers texts only", () =>
    Effect.gen(function* () {
      const fake = yield* FakeMessageBird.start
      const sender = MessageBird.make(settings(fake.origin))
      expect(sender.supports("sms")).toBe(true)
      expect(sender.supports("whatsapp")).toBe(false)
      const error = yield* Effect.flip(sender.send({ ...text, channel: "whatsapp" }))
      expect(error._tag).toBe("SmsSendFailed")
      expect(fake.received()).toEqual([])
    })
  )

  describe("failures", () => {
    it.scoped("passes the description of MessageBird's first error on", () =>
      Effect.gen(function* () {
        const fake = yield* FakeMessageBird.start
        fake.answer("refuse")
        const error = yield* Effect.flip(MessageBird.make(settings(fake.origin)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: FakeMessageBird.refusalMessage }))
      })
    )

    it.scoped("refuses on a wrong access key with MessageBird's words, not the key", () =>
      Effect.gen(function* () {
        const fake = yield* FakeMessageBird.start
        const sender = MessageBird.make(settings(fake.origin, { accessKey: Redacted.make("test_wrong") }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error.message).toBe("Request not allowed (incorrect access_key)")
      })
    )

    it.scoped("refuses a message MessageBird took but sent to nobody", () =>
      Effect.gen(function* () {
        const fake = yield* FakeMessageBird.start
        fake.answer("unsent")
        const error = yield* Effect.flip(MessageBird.make(settings(fake.origin)).send(text))
        expect(error.message).toBe("MessageBird sent the message to no recipient")
      })
    )

    it.scoped("reports a 5xx page by its status", () =>
      Effect.gen(function* () {
        const fake = yield* FakeMessageBird.start
        fake.answer("badGateway")
        const error = yield* Effect.flip(MessageBird.make(settings(fake.origin)).send(text))
        expect(error.message).toBe("MessageBird answered 502")
      })
    )

    it.effect("refuses when nothing listens at the gateway's address", () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const error = yield* Effect.flip(MessageBird.make(settings(`http://127.0.0.1:${port}`)).send(text))
        expect(error.message).toBe("could not reach MessageBird (ECONNREFUSED)")
      })
    )
  })
})
