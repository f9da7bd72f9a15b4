import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Tracer from "effect/Tracer"
import * as SmsGateways from "../../../adapters/sms/auth/SmsGateways.js"
import { type SmsMessage, SmsSender } from "../../../application/auth/ports/SmsSender.js"
import * as FakeMessageBird from "../../support/auth/sms/FakeMessageBird.js"
import * as FakeTextlocal from "../../support/auth/sms/FakeTextlocal.js"
import * as FakeTwilio from "../../support/auth/sms/FakeTwilio.js"
import * as FakeTwilioVerify from "../../support/auth/sms/FakeTwilioVerify.js"
import * as FakeVonage from "../../support/auth/sms/FakeVonage.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const text: SmsMessage = {
  to: "15555550100",
  body: "Your code is 123456",
  channel: "sms",
  code: Redacted.make("123456")
}

/** The default tracer, with every span it makes kept for the test to read. */
const recordingTracer = Effect.map(Effect.tracer, (native) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = native.span(...args)
      spans.push(span)
      return span
    },
    context: native.context
  })
  return { tracer, spans }
})

/** Every gateway, each pointed at its fake, and the id its fake answers with. */
const gateways = Effect.gen(function* () {
  const twilio = yield* FakeTwilio.start
  const verify = yield* FakeTwilioVerify.start
  const messageBird = yield* FakeMessageBird.start
  const textlocal = yield* FakeTextlocal.start
  const vonage = yield* FakeVonage.start
  const all: ReadonlyArray<readonly [SmsGateways.Gateway, string]> = [
    [
      {
        provider: "twilio",
        settings: {
          accountSid: FakeTwilio.accountSid,
          authToken: Redacted.make(FakeTwilio.authToken),
          messageServiceSid: "+15555550199",
          contentSid: Option.none(),
          baseUrl: twilio.origin,
          allowedPrivateAddresses: Allowed.localhost
        }
      },
      FakeTwilio.messageSid
    ],
    [
      {
        provider: "twilio_verify",
        settings: {
          accountSid: FakeTwilioVerify.accountSid,
          authToken: Redacted.make(FakeTwilioVerify.authToken),
          serviceSid: FakeTwilioVerify.serviceSid,
          baseUrl: verify.origin,
          allowedPrivateAddresses: Allowed.localhost
        }
      },
      FakeTwilioVerify.verificationSid
    ],
    [
      {
        provider: "messagebird",
        settings: {
          accessKey: Redacted.make(FakeMessageBird.accessKey),
          originator: FakeMessageBird.originator,
          baseUrl: messageBird.origin,
          allowedPrivateAddresses: Allowed.localhost
        }
      },
      FakeMessageBird.messageId
    ],
    [
      {
        provider: "textlocal",
        settings: {
          apiKey: Redacted.make(FakeTextlocal.apiKey),
          sender: FakeTextlocal.sender,
          baseUrl: textlocal.origin,
          allowedPrivateAddresses: Allowed.localhost
        }
      },
      FakeTextlocal.messageId
    ],
    [
      {
        provider: "vonage",
        settings: {
          apiKey: FakeVonage.apiKey,
          apiSecret: Redacted.make(FakeVonage.apiSecret),
          from: FakeVonage.from,
          baseUrl: vonage.origin,
          allowedPrivateAddresses: Allowed.localhost
        }
      },
      FakeVonage.messageId
    ]
  ]
  return all
})

describe("SmsGateways", () => {
  it("names every provider of SMS_PROVIDER", () => {
    expect(SmsGateways.providers).toEqual(["twilio", "twilio_verify", "messagebird", "textlocal", "vonage"])
  })

  it.scoped("gives the SmsSender of the provider chosen, and only Twilio's take WhatsApp", () =>
    Effect.gen(function* () {
      for (const [gateway, id] of yield* gateways) {
        const sender = yield* Effect.provide(SmsSender, SmsGateways.layer(gateway))
        expect(sender.provider).toBe(gateway.provider)
        expect(yield* sender.send(text)).toBe(id)
        expect(sender.supports("whatsapp")).toBe(gateway.provider.startsWith("twilio"))
        expect(Option.isSome(sender.check)).toBe(gateway.provider === "twilio_verify")
      }
    })
  )

  it.scoped("makes each send a span annotated with the provider and the channel only", () =>
    Effect.gen(function* () {
      const { tracer, spans } = yield* recordingTracer
      for (const [gateway] of yield* gateways) {
        yield* SmsGateways.make(gateway).send(text).pipe(Effect.withTracer(tracer))
      }
      expect(spans.map((span) => [span.name, Object.fromEntries(span.attributes)])).toEqual([
        ["Twilio.send", { "sms.provider": "twilio", "sms.channel": "sms" }],
        ["TwilioVerify.send", { "sms.provider": "twilio_verify", "sms.channel": "sms" }],
        ["MessageBird.send", { "sms.provider": "messagebird", "sms.channel": "sms" }],
        ["Textlocal.send", { "sms.provider": "textlocal", "sms.channel": "sms" }],
        ["Vonage.send", { "sms.provider": "vonage", "sms.channel": "sms" }]
      ])
    })
  )
})
