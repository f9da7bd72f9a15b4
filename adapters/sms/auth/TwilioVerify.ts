import type * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { type Channel, type SmsMessage, SmsSender } from "../../../application/auth/ports/SmsSender.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as GatewayConfig from "./GatewayConfig.js"
import * as GatewayHttp from "./GatewayHttp.js"
import * as Twilio from "./Twilio.js"

/**
 * Twilio Verify: `SMS_PROVIDER=twilio_verify`. Verify writes and sends its own code (the
 * rendered `SMS_TEMPLATE` and our code are not used) and checks the code the user types.
 */

export interface TwilioVerifySettings extends GatewayHttp.Endpoint {
  /** `SMS_TWILIO_VERIFY_ACCOUNT_SID`: the user name of basic auth. */
  readonly accountSid: string
  /** `SMS_TWILIO_VERIFY_AUTH_TOKEN`: the password of basic auth. */
  readonly authToken: Redacted.Redacted
  /** `SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID`: the Verify service (`VA…`). */
  readonly serviceSid: string
}

/** The variables `SMS_PROVIDER=twilio_verify` reads. */
export const variables = {
  accountSid: "AUTHSVC_SMS_TWILIO_VERIFY_ACCOUNT_SID",
  authToken: "AUTHSVC_SMS_TWILIO_VERIFY_AUTH_TOKEN",
  serviceSid: "AUTHSVC_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID"
} as const

/** The settings `variables` give, each of them needed. */
export const config: Config.Config<GatewayConfig.Reading<TwilioVerifySettings>> = GatewayConfig.all({
  accountSid: GatewayConfig.text(variables.accountSid),
  authToken: GatewayConfig.secret(variables.authToken),
  serviceSid: GatewayConfig.text(variables.serviceSid)
})

export const defaultBaseUrl = "https://verify.twilio.com"

export const name = "Twilio Verify"

const Verification = Schema.Struct({ sid: Schema.String })
const decodeVerification = Schema.decodeUnknownOption(Verification)

const VerificationCheck = Schema.Struct({ status: Schema.String })
const decodeCheck = Schema.decodeUnknownOption(VerificationCheck)

const ErrorCode = Schema.Struct({ code: Schema.Number })
const decodeErrorCode = Schema.decodeUnknownOption(ErrorCode)

/** Verify's "Max check attempts reached": the code can no longer be approved. */
const maxCheckAttempts = 60202

/**
 * Answers of a check that mean "not this code" rather than a failure: 404 is Verify's answer
 * once the verification has expired, been approved or run out of attempts (it is deleted then),
 * 429 with 60202 once the attempts are spent.
 */
const isSpent = (answer: GatewayHttp.Answer): boolean =>
  answer.status === 404 ||
  (answer.status === 429 &&
    Option.exists(Option.flatMap(answer.json, decodeErrorCode), ({ code }) => code === maxCheckAttempts))

const channels: ReadonlySet<Channel> = new Set(["sms", "whatsapp"])

export const make = (settings: TwilioVerifySettings): Context.Tag.Service<SmsSender> => {
  const service = `/v2/Services/${encodeURIComponent(settings.serviceSid)}`
  const verifications = GatewayHttp.urlOf(settings, defaultBaseUrl, `${service}/Verifications`)
  const checks = GatewayHttp.urlOf(settings, defaultBaseUrl, `${service}/VerificationCheck`)
  const headers = { authorization: Twilio.basicAuth(settings.accountSid, settings.authToken) }
  return {
    provider: "twilio_verify",
    supports: (channel) => channels.has(channel),
    send: Telemetry.fn("TwilioVerify.send")(
      (message: SmsMessage) =>
        Effect.gen(function* () {
          // Unlike Programmable Messaging, Verify names the channel and takes no prefix on `To`.
          const form = new URLSearchParams({ To: GatewayHttp.withPlus(message.to), Channel: message.channel })
          const answer = yield* GatewayHttp.postForm(name, verifications, form, headers, settings)
          if (!GatewayHttp.isSuccess(answer)) return yield* Effect.fail(Twilio.refusal(name, answer))
          const started = Option.flatMap(answer.json, decodeVerification)
          if (Option.isNone(started)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
          return started.value.sid
        }),
      (message) => ({ "sms.provider": "twilio_verify", "sms.channel": message.channel })
    ),
    check: Option.some(
      Telemetry.fn("TwilioVerify.check")(
        (to: string, code: Redacted.Redacted<string>) =>
          Effect.gen(function* () {
            const form = new URLSearchParams({ To: GatewayHttp.withPlus(to), Code: Redacted.value(code) })
            const answer = yield* GatewayHttp.postForm(name, checks, form, headers, settings)
            if (isSpent(answer)) return false
            if (!GatewayHttp.isSuccess(answer)) return yield* Effect.fail(Twilio.refusal(name, answer))
            const checked = Option.flatMap(answer.json, decodeCheck)
            if (Option.isNone(checked)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
            return checked.value.status === "approved"
          }),
        () => ({ "sms.provider": "twilio_verify" })
      )
    )
  }
}

export const layer = (settings: TwilioVerifySettings): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(settings))
