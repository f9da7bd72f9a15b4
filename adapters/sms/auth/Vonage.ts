import type * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { type SmsMessage, SmsSender, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as GatewayConfig from "./GatewayConfig.js"
import * as GatewayHttp from "./GatewayHttp.js"

/** Vonage's (Nexmo's) SMS API: `SMS_PROVIDER=vonage`, texts only. */

export interface VonageSettings extends GatewayHttp.Endpoint {
  /** `SMS_VONAGE_API_KEY`. */
  readonly apiKey: string
  /** `SMS_VONAGE_API_SECRET`. */
  readonly apiSecret: Redacted.Redacted
  /** `SMS_VONAGE_FROM`: the sender, a number or up to 11 letters. */
  readonly from: string
}

/** The variables `SMS_PROVIDER=vonage` reads. */
export const variables = {
  apiKey: "AUTHSVC_SMS_VONAGE_API_KEY",
  apiSecret: "AUTHSVC_SMS_VONAGE_API_SECRET",
  from: "AUTHSVC_SMS_VONAGE_FROM"
} as const

/** The settings `variables` give, each of them needed. */
export const config: Config.Config<GatewayConfig.Reading<VonageSettings>> = GatewayConfig.all({
  apiKey: GatewayConfig.text(variables.apiKey),
  apiSecret: GatewayConfig.secret(variables.apiSecret),
  from: GatewayConfig.text(variables.from)
})

export const defaultBaseUrl = "https://rest.nexmo.com"

export const name = "Vonage"

const Sent = Schema.Struct({
  messages: Schema.NonEmptyArray(
    Schema.Struct({
      status: Schema.String,
      "message-id": Schema.optional(Schema.String),
      "error-text": Schema.optional(Schema.String)
    })
  )
})
const decodeSent = Schema.decodeUnknownOption(Sent)

// Beyond ASCII, Vonage needs `type=unicode`, or it sends the text mangled.
const isAscii = (text: string): boolean => /^\p{ASCII}*$/u.test(text)

export const make = (settings: VonageSettings): Context.Tag.Service<SmsSender> => {
  const url = GatewayHttp.urlOf(settings, defaultBaseUrl, "/sms/json")
  return {
    provider: "vonage",
    supports: (channel) => channel === "sms",
    send: Telemetry.fn("Vonage.send")(
      (message: SmsMessage) =>
        Effect.gen(function* () {
          if (message.channel !== "sms")
            return yield* Effect.fail(GatewayHttp.unsupported(name, message.channel))
          const form = new URLSearchParams({
            api_key: settings.apiKey,
            api_secret: Redacted.value(settings.apiSecret),
            from: settings.from,
            to: GatewayHttp.digitsOf(message.to),
            text: message.body
          })
          if (!isAscii(message.body)) form.set("type", "unicode")
          const answer = yield* GatewayHttp.postForm(name, url, form, {}, settings)
          // Vonage answers 200 to a message it refuses: the verdict is each message's status.
          const sent = Option.flatMap(answer.json, decodeSent)
          if (Option.isNone(sent)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
          const first = sent.value.messages[0]
          if (first.status !== "0") {
            return yield* Effect.fail(
              new SmsSendFailed({
                message: first["error-text"] ?? `${name} refused the message (status ${first.status})`
              })
            )
          }
          return first["message-id"] ?? ""
        }),
      (message) => ({ "sms.provider": "vonage", "sms.channel": message.channel })
    ),
    check: Option.none()
  }
}

export const layer = (settings: VonageSettings): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(settings))
