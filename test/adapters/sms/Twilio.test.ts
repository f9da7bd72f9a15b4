import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Twilio from "../../../adapters/sms/auth/Twilio.js"
import { type SmsMessage, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as FakeTwilio from "../../support/auth/sms/FakeTwilio.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const messagingService = "MG0123456789abcdef0123456789abcdef"

const settings = (
  baseUrl: string,
  overrides: Partial<Twilio.TwilioSettings> = {}
): Twilio.TwilioSettings => ({
  accountSid: FakeTwilio.accountSid,
  authToken: Redacted.make(FakeTwilio.authToken),
  messageServiceSid: messagingService,
  contentSid: Option.none(),
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

const whatsapp: SmsMessage = { ...text, channel: "whatsapp" }

const formOf = (fake: { received: () => ReadonlyArray<{ form: URLSearchParams }> }) =>
  Object.fromEntries(fake.received().at(-1)?.form ?? [])

describe("Twilio Programmable Messaging", () => {
  it.scoped("sends a text through the Messaging Service and returns the message SID", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTwilio.start
      const sender = Twilio.make(settings(fake.origin))
      expect(yield* sender.send(text)).toBe(FakeTwilio.messageSid)
      expect(formOf(fake)).toEqual({
        To: "+15555550100",
        MessagingServiceSid: messagingService,
        Body: "Your code is 123456"
      })
      expect(sender.provider).toBe("twilio")
      expect(Option.isNone(sender.check)).toBe(true)
    })
  )

  it.scoped("sends From a phone number that is not a Messaging Service", () =>
    Effect.gen(function* () {
      const fake = yield* FakeTwilio.start
      const sender = Twilio.make(settings(fake.origin, { messageServiceSid: "+15555550199" }))
      yield* sender.send(text)
      expect(formOf(fake)).toEqual({ To: "+15555550100", From: "+15555550199", Body: "Your code is 123456" })
    })
  )

  describe("WhatsApp", () => {
    it.scoped("prefixes whatsapp: on the recipient and on a sender number", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        const sender = Twilio.make(settings(fake.origin, { messageServiceSid: "+15555550199" }))
        expect(sender.supports("whatsapp")).toBe(true)
        expect(yield* sender.send(whatsapp)).toBe(FakeTwilio.messageSid)
        expect(formOf(fake)).toEqual({
          To: "whatsapp:+15555550100",
          From: "whatsapp:+15555550199",
          Body: "Your code is 123456"
        })
      })
    )

    it.scoped("leaves a Messaging Service unprefixed", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        yield* Twilio.make(settings(fake.origin)).send(whatsapp)
        expect(formOf(fake)).toEqual({
          To: "whatsapp:+15555550100",
          MessagingServiceSid: messagingService,
          Body: "Your code is 123456"
        })
      })
    )

    it.scoped("sends the content template with the code as its variable 1 instead of the text", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        const sender = Twilio.make(settings(fake.origin, { contentSid: Option.some("HX0123456789abcdef") }))
        yield* sender.send(whatsapp)
        expect(formOf(fake)).toEqual({
          To: "whatsapp:+15555550100",
          MessagingServiceSid: messagingService,
          ContentSid: "HX0123456789abcdef",
          ContentVariables: '{"1":"123456"}'
        })
        // A text keeps its body: the template is WhatsApp's.
        yield* sender.send(text)
        expect(formOf(fake)).toEqual({
          To: "+15555550100",
          MessagingServiceSid: messagingService,
          Body: "Your code is 123456"
        })
      })
    )
  })

  describe("failures", () => {
    it.scoped("passes Twilio's own message on when it refuses the number", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        fake.answer("refuse")
        const error = yield* Effect.flip(Twilio.make(settings(fake.origin)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: FakeTwilio.refusalMessage }))
      })
    )

    it.scoped("refuses with the message Twilio gives a message already failed", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        fake.answer("failed")
        const error = yield* Effect.flip(Twilio.make(settings(fake.origin)).send(text))
        expect(error.message).toBe(FakeTwilio.failedMessage)
      })
    )

    it.scoped("refuses on a wrong auth token, with Twilio's message and not the token", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        const sender = Twilio.make(settings(fake.origin, { authToken: Redacted.make("wrong-token") }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error._tag).toBe("SmsSendFailed")
        expect(error.message).toContain("fake Twilio: expected basic auth")
        expect(error.message).not.toContain("wrong-token")
      })
    )

    it.scoped("reports a 5xx page and a body cut off by the status alone", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        const sender = Twilio.make(settings(fake.origin))
        fake.answer("badGateway")
        expect((yield* Effect.flip(sender.send(text))).message).toBe("Twilio answered 502")
        fake.answer("truncated")
        expect((yield* Effect.flip(sender.send(text))).message).toBe(
          "Twilio answered 200 with a body it does not document"
        )
      })
    )

    it.effect("refuses when nothing listens at the gateway's address", () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const error = yield* Effect.flip(Twilio.make(settings(`http://127.0.0.1:${port}`)).send(text))
        expect(error).toEqual(new SmsSendFailed({ message: "could not reach Twilio (ECONNREFUSED)" }))
      })
    )

    it.scoped("does not call a gateway at an address the outbound guard refuses", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        // The fake's loopback address, without the private addresses the other tests allow.
        const sender = Twilio.make(settings(fake.origin, { allowedPrivateAddresses: undefined }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error).toEqual(
          new SmsSendFailed({ message: "could not reach Twilio (its address is not one we call)" })
        )
        expect(fake.received()).toEqual([])
      })
    )

    it.scoped("gives up on a gateway that does not answer within the time limit", () =>
      Effect.gen(function* () {
        const fake = yield* FakeTwilio.start
        fake.answer("hang")
        const sender = Twilio.make(settings(fake.origin, { timeout: Duration.millis(50) }))
        const error = yield* Effect.flip(sender.send(text))
        expect(error.message).toBe("Twilio did not answer within 50ms")
      })
    )
  })
})
