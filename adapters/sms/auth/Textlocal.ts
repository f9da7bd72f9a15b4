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

/** Textlocal's `send` command: `SMS_PROVIDER=textlocal`, texts only. */

export interface TextlocalSettings extends GatewayHttp.Endpoint {
  /** `SMS_TEXTLOCAL_API_KEY`. */
  readonly apiKey: Redacted.Redacted
  /** `SMS_TEXTLOCAL_SENDER`: the sender name Textlocal approved. */
  readonly sender: string
}

/** The variables `SMS_PROVIDER=textlocal` reads. */
export const variables = {
  apiKey: "AUTHSVC_SMS_TEXTLOCAL_API_KEY",
  sender: "AUTHSVC_SMS_TEXTLOCAL_SENDER"
} as const

/** The settings `variables` give, each of them needed. */
export const config: Config.Config<GatewayConfig.Reading<TextlocalSettings>> = GatewayConfig.all({
  apiKey: GatewayConfig.secret(variables.apiKey),
  sender: GatewayConfig.text(variables.sender)
})

/**
 * Textlocal India, where Supabase Auth sends: its keys are the ones deployments hold. Textlocal
 * UK (`https://api.txtlocal.com`) takes the same request and answers the same way, with its own
 * keys; point `baseUrl` there for a UK account.
 */
export const defaultBaseUrl = "https://api.textlocal.in"

export const name = "Textlocal"

// Every answer carries `status`, `success` or `failure`; ids come as strings or numbers.
const Answer = Schema.Struct({
  status: Schema.String,
  errors: Schema.optional(Schema.Array(Schema.Struct({ message: Schema.String }))),
  messages: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) })))
})
const decodeAnswer = Schema.decodeUnknownOption(Answer)

export const make = (settings: TextlocalSettings): Context.Tag.Service<SmsSender> => {
  const url = GatewayHttp.urlOf(settings, defaultBaseUrl, "/send/")
  return {
    provider: "textlocal",
    supports: (channel) => channel === "sms",
    send: Telemetry.fn("Textlocal.send")(
      (message: SmsMessage) =>
        Effect.gen(function* () {
          if (message.channel !== "sms")
            return yield* Effect.fail(GatewayHttp.unsupported(name, message.channel))
          const form = new URLSearchParams({
            apikey: Redacted.value(settings.apiKey),
            sender: settings.sender,
            numbers: GatewayHttp.digitsOf(message.to),
            message: message.body
          })
          const answer = yield* GatewayHttp.postForm(name, url, form, {}, settings)
          const read = Option.flatMap(answer.json, decodeAnswer)
          if (Option.isNone(read)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
          if (read.value.status !== "success") {
            return yield* Effect.fail(
              new SmsSendFailed({
                message: read.value.errors?.[0]?.message ?? `${name} answered ${read.value.status}`
              })
            )
          }
          const id = read.value.messages?.[0]?.id
          return id === undefined ? "" : String(id)
        }),
      (message) => ({ "sms.provider": "textlocal", "sms.channel": message.channel })
    ),
    check: Option.none()
  }
}

export const layer = (settings: TextlocalSettings): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(settings))
