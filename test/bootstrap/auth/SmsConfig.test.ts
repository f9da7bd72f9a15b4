import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as SmsGateways from "../../../adapters/sms/auth/SmsGateways.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as SmsConfig from "../../../bootstrap/auth/SmsConfig.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"

const load = (env: Record<string, string>) =>
  Effect.withConfigProvider(
    SmsConfig.sms,
    AuthEnvironment.provider(AuthEnvironment.merge(Option.none(), env))
  ).pipe(Effect.either, Effect.map(Either.mapLeft(ConfigReport.lines)))

/** The config of a start that must succeed. */
const config = (env: Record<string, string>) => Effect.map(load(env), Either.getOrThrow)

/** Why a gateway that is named cannot send (a start that must succeed), with no gateway then. */
const unusable = (env: Record<string, string>) =>
  Effect.map(config(env), (c) => {
    expect(c.gateway).toEqual(Option.none())
    return Option.getOrThrow(c.unusable)
  })

/** The report of a start that must fail. */
const report = (env: Record<string, string>) =>
  Effect.map(load(env), (result) => Either.getOrThrowWith(Either.flip(result), () => "the start succeeded"))

/** The chosen gateway (null for none), its secrets revealed as `secret:VALUE`, for comparing. */
const revealed = (gateway: Option.Option<SmsGateways.Gateway>) =>
  Option.match(gateway, {
    onNone: () => null,
    onSome: ({ provider, settings }) => ({
      provider,
      settings: Object.fromEntries(
        Object.entries(settings).map(([key, value]: [string, unknown]) => [
          key,
          Redacted.isRedacted(value) ? `secret:${Redacted.value(value)}` : value
        ])
      )
    })
  })

const twilio = {
  AUTHSVC_SMS_PROVIDER: "twilio",
  AUTHSVC_SMS_TWILIO_ACCOUNT_SID: "AC123",
  AUTHSVC_SMS_TWILIO_AUTH_TOKEN: "token",
  AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID: "MG123"
}

describe("SMS configuration", () => {
  it.effect("sends no texts without SMS_PROVIDER, and applies Supabase Auth's defaults", () =>
    Effect.gen(function* () {
      const c = yield* config({})
      expect(c).toEqual({
        provider: Option.none(),
        gateway: Option.none(),
        unusable: Option.none(),
        template: "Your code is {{ .Code }}",
        otpExpSeconds: 60,
        otpLength: 6,
        maxFrequency: Duration.seconds(60),
        testOtp: new Map(),
        testOtpValidUntil: Option.none()
      })
      expect((yield* config({ AUTHSVC_SMS_PROVIDER: "  " })).gateway).toEqual(Option.none())
    })
  )

  it.effect("starts with a provider it does not know, as Supabase Auth does, unable to send", () =>
    Effect.gen(function* () {
      const c = yield* config({ AUTHSVC_SMS_PROVIDER: "plivo" })
      expect([c.provider, c.gateway, c.unusable]).toEqual([
        Option.some("plivo"),
        Option.none(),
        Option.some("it is none of twilio, twilio_verify, messagebird, textlocal, vonage")
      ])
    })
  )

  describe("each provider's credentials", () => {
    it.effect("twilio: the account SID, the auth token, the sender; the content SID if set", () =>
      Effect.gen(function* () {
        expect(revealed((yield* config(twilio)).gateway)).toEqual({
          provider: "twilio",
          settings: {
            accountSid: "AC123",
            authToken: "secret:token",
            messageServiceSid: "MG123",
            contentSid: Option.none()
          }
        })
        const withContent = yield* config({ ...twilio, AUTHSVC_SMS_TWILIO_CONTENT_SID: "HX123" })
        expect(
          Option.map(
            withContent.gateway,
            (gateway) => gateway.provider === "twilio" && gateway.settings.contentSid
          )
        ).toEqual(Option.some(Option.some("HX123")))
        expect(yield* unusable({ AUTHSVC_SMS_PROVIDER: "twilio" })).toBe(
          "AUTHSVC_SMS_TWILIO_ACCOUNT_SID, AUTHSVC_SMS_TWILIO_AUTH_TOKEN, AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID are unset"
        )
        expect(yield* unusable({ ...twilio, AUTHSVC_SMS_TWILIO_AUTH_TOKEN: "   " })).toBe(
          "AUTHSVC_SMS_TWILIO_AUTH_TOKEN is unset"
        )
      })
    )

    it.effect("twilio_verify: its own account SID, auth token and Verify service", () =>
      Effect.gen(function* () {
        const env = {
          AUTHSVC_SMS_PROVIDER: "twilio_verify",
          AUTHSVC_SMS_TWILIO_VERIFY_ACCOUNT_SID: "AC456",
          AUTHSVC_SMS_TWILIO_VERIFY_AUTH_TOKEN: "verify-token",
          AUTHSVC_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID: "VA456"
        }
        expect(revealed((yield* config(env)).gateway)).toEqual({
          provider: "twilio_verify",
          settings: { accountSid: "AC456", authToken: "secret:verify-token", serviceSid: "VA456" }
        })
        // Programmable Messaging's credentials are not Verify's.
        expect(yield* unusable({ ...twilio, AUTHSVC_SMS_PROVIDER: "twilio_verify" })).toBe(
          "AUTHSVC_SMS_TWILIO_VERIFY_ACCOUNT_SID, AUTHSVC_SMS_TWILIO_VERIFY_AUTH_TOKEN, AUTHSVC_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID are unset"
        )
      })
    )

    it.effect("messagebird: the access key and the originator", () =>
      Effect.gen(function* () {
        expect(
          revealed(
            (yield* config({
              AUTHSVC_SMS_PROVIDER: "messagebird",
              AUTHSVC_SMS_MESSAGEBIRD_ACCESS_KEY: "live_key",
              AUTHSVC_SMS_MESSAGEBIRD_ORIGINATOR: "Latchkey"
            })).gateway
          )
        ).toEqual({
          provider: "messagebird",
          settings: { accessKey: "secret:live_key", originator: "Latchkey" }
        })
        expect(
          yield* unusable({
            AUTHSVC_SMS_PROVIDER: "messagebird",
            AUTHSVC_SMS_MESSAGEBIRD_ACCESS_KEY: "live_key"
          })
        ).toBe("AUTHSVC_SMS_MESSAGEBIRD_ORIGINATOR is unset")
      })
    )

    it.effect("textlocal: the API key and the sender", () =>
      Effect.gen(function* () {
        expect(
          revealed(
            (yield* config({
              AUTHSVC_SMS_PROVIDER: "textlocal",
              AUTHSVC_SMS_TEXTLOCAL_API_KEY: "tl-key",
              AUTHSVC_SMS_TEXTLOCAL_SENDER: "LTCHKY"
            })).gateway
          )
        ).toEqual({ provider: "textlocal", settings: { apiKey: "secret:tl-key", sender: "LTCHKY" } })
        expect(
          yield* unusable({ AUTHSVC_SMS_PROVIDER: "textlocal", AUTHSVC_SMS_TEXTLOCAL_SENDER: "LTCHKY" })
        ).toBe("AUTHSVC_SMS_TEXTLOCAL_API_KEY is unset")
      })
    )

    it.effect("vonage: the API key and secret, and the sender", () =>
      Effect.gen(function* () {
        expect(
          revealed(
            (yield* config({
              AUTHSVC_SMS_PROVIDER: "vonage",
              AUTHSVC_SMS_VONAGE_API_KEY: "vk",
              AUTHSVC_SMS_VONAGE_API_SECRET: "vs",
              AUTHSVC_SMS_VONAGE_FROM: "Latchkey"
            })).gateway
          )
        ).toEqual({
          provider: "vonage",
          settings: { apiKey: "vk", apiSecret: "secret:vs", from: "Latchkey" }
        })
        expect(yield* unusable({ AUTHSVC_SMS_PROVIDER: "vonage", AUTHSVC_SMS_VONAGE_API_KEY: "vk" })).toBe(
          "AUTHSVC_SMS_VONAGE_API_SECRET, AUTHSVC_SMS_VONAGE_FROM are unset"
        )
      })
    )

    it.effect("ignores the credentials of providers not chosen", () =>
      Effect.gen(function* () {
        const c = yield* config({ ...twilio, AUTHSVC_SMS_VONAGE_API_KEY: "vk" })
        expect(Option.map(c.gateway, (gateway) => gateway.provider)).toEqual(Option.some("twilio"))
        expect((yield* config({ AUTHSVC_SMS_VONAGE_API_KEY: "vk" })).gateway).toEqual(Option.none())
      })
    )

    it.effect("never shows a secret in the configuration's text", () =>
      Effect.gen(function* () {
        const c = yield* config({ ...twilio, AUTHSVC_SMS_TWILIO_AUTH_TOKEN: "s3cr3t-value" })
        expect(JSON.stringify(c)).not.toContain("s3cr3t")
        expect(String(c.gateway)).not.toContain("s3cr3t")
      })
    )
  })

  describe("the text and the codes", () => {
    it.effect("takes a template that parses, and refuses one that does not while a gateway is named", () =>
      Effect.gen(function* () {
        const template = "{{ .Code }} is your Example code"
        expect((yield* config({ AUTHSVC_SMS_TEMPLATE: template })).template).toBe(template)
        expect(yield* report({ ...twilio, AUTHSVC_SMS_TEMPLATE: "Your code is {{ .Code " })).toEqual([
          "AUTHSVC_SMS_TEMPLATE: does not parse as a template: unclosed action at 13"
        ])
        // Without a gateway no text is rendered, and Supabase Auth never reads the template.
        expect((yield* config({ AUTHSVC_SMS_TEMPLATE: "Your code is {{ .Code " })).template).toBe(
          "Your code is {{ .Code "
        )
      })
    )

    it.effect("reads the code's lifetime, length and spacing; 0 means the default, as in Supabase Auth", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_SMS_OTP_EXP: "300",
          AUTHSVC_SMS_OTP_LENGTH: "8",
          AUTHSVC_SMS_MAX_FREQUENCY: "1m30s"
        })
        expect([c.otpExpSeconds, c.otpLength, Duration.toMillis(c.maxFrequency)]).toEqual([300, 8, 90_000])
        expect((yield* config({ AUTHSVC_SMS_MAX_FREQUENCY: "45" })).maxFrequency).toEqual(
          Duration.seconds(45)
        )
        const zero = yield* config({ AUTHSVC_SMS_OTP_EXP: "0", AUTHSVC_SMS_MAX_FREQUENCY: "0s" })
        expect([zero.otpExpSeconds, zero.maxFrequency]).toEqual([60, Duration.seconds(60)])
      })
    )

    it.effect("reads a length outside 6 to 10 as 6; refuses values that are not numbers or durations", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_SMS_OTP_LENGTH: "4" })).otpLength).toBe(6)
        expect((yield* config({ AUTHSVC_SMS_OTP_LENGTH: "11" })).otpLength).toBe(6)
        expect(yield* report({ AUTHSVC_SMS_OTP_EXP: "a minute", AUTHSVC_SMS_MAX_FREQUENCY: "soon" })).toEqual(
          [
            "AUTHSVC_SMS_OTP_EXP: expected a whole number, 0 or more",
            "AUTHSVC_SMS_MAX_FREQUENCY: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
          ]
        )
      })
    )
  })

  describe("SMS_TEST_OTP", () => {
    it.effect("reads phone:code pairs, the numbers stored as digits whether written with + or not", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_SMS_TEST_OTP: "15555550100:123456, +44 7700 900123:654321, 4152127777:123456",
          AUTHSVC_SMS_TEST_OTP_VALID_UNTIL: "2030-01-31T12:00:00+01:00"
        })
        expect(c.testOtp).toEqual(
          new Map([
            ["15555550100", "123456"],
            ["447700900123", "654321"],
            // Supabase's config.toml: a number no country's numbering plan has.
            ["4152127777", "123456"]
          ])
        )
        expect(c.testOtpValidUntil).toEqual(Option.some(new Date("2030-01-31T11:00:00Z")))
      })
    )

    it.effect("refuses an item that is not one phone:code pair, as Supabase Auth's map reading does", () =>
      Effect.gen(function* () {
        const expected = [
          "AUTHSVC_SMS_TEST_OTP: expected phone:code pairs separated by commas, e.g. 15555550100:123456"
        ]
        expect(yield* report({ AUTHSVC_SMS_TEST_OTP: "15555550100" })).toEqual(expected)
        expect(yield* report({ AUTHSVC_SMS_TEST_OTP: "15555550100:12:34" })).toEqual(expected)
        expect(yield* report({ AUTHSVC_SMS_TEST_OTP: "15555550100:123456," })).toEqual(expected)
      })
    )

    it.effect("starts without the pairs no sign-in can match: no number, or no code", () =>
      Effect.gen(function* () {
        // GoTrue's example.env, as it comes.
        const example = "<phone-1>:<otp-1>, <phone-2>:<otp-2>..."
        for (const [value, kept] of [
          ["15555550100:123456,:1", [["15555550100", "123456"]]],
          ["phone:123456, +0155:123456, 15555550101:", []],
          [example, []]
        ] as const) {
          expect((yield* config({ AUTHSVC_SMS_TEST_OTP: value })).testOtp).toEqual(new Map(kept))
        }
        expect(SmsConfig.ignoredTestOtps("15555550100:123456,:1")).toEqual([":1"])
        expect(SmsConfig.ignoredTestOtps(example)).toEqual(["<phone-1>:<otp-1>", "<phone-2>:<otp-2>..."])
        expect(SmsConfig.ignoredTestOtps("15555550100:123456")).toEqual([])
        expect(SmsConfig.ignoredTestOtps("15555550100")).toEqual([])
      })
    )

    it.effect("refuses a time that is not RFC 3339", () =>
      Effect.gen(function* () {
        for (const value of [
          "2030-01-31",
          "tomorrow",
          "2030-01-31 12:00:00Z",
          "2030-02-31T12:00:00Z",
          "2030-01-31T24:00:00Z"
        ]) {
          expect(yield* report({ AUTHSVC_SMS_TEST_OTP_VALID_UNTIL: value })).toEqual([
            "AUTHSVC_SMS_TEST_OTP_VALID_UNTIL: expected an RFC 3339 time, e.g. 2030-01-31T12:00:00Z"
          ])
        }
      })
    )
  })
})
