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

/** MessageBird's SMS API: `SMS_PROVIDER=messagebird`, texts only. */

export interface MessageBirdSettings extends GatewayHttp.Endpoint {
  /** `SMS_MESSAGEBIRD_ACCESS_KEY`. */
  readonly accessKey: Redacted.Redacted
  /** `SMS_MESSAGEBIRD_ORIGINATOR`: the sender, a number or up to 11 letters. */
  readonly originator: string
}

/** The variables `SMS_PROVIDER=messagebird` reads. */
export const variables = {
  accessKey: "AUTHSVC_SMS_MESSAGEBIRD_ACCESS_KEY",
  originator: "AUTHSVC_SMS_MESSAGEBIRD_ORIGINATOR"
} as const

/** The settings `variables` give, each of them needed. */
export const config: Config.Config<GatewayConfig.Reading<MessageBirdSettings>> = GatewayConfig.all({
  accessKey: GatewayConfig.secret(variables.accessKey),
  originator: GatewayConfig.text(variables.originator)
})

export const defaultBaseUrl = "https://rest.messagebird.com"

export const name = "MessageBird"

const Created = Schema.Struct({
  id: Schema.String,
  recipients: Schema.Struct({ totalSentCount: Schema.Number })
})
const decodeCreated = Schema.decodeUnknownOption(Created)

const Errors = Schema.Struct({
  errors: Schema.NonEmptyArray(Schema.Struct({ description: Schema.String }))
})
const decodeErrors = Schema.decodeUnknownOption(Errors)

export const make = (settings: MessageBirdSettings): Context.Tag.Service<SmsSender> => {
  const url = GatewayHttp.urlOf(settings, defaultBaseUrl, "/messages")
  const headers = { authorization: `AccessKey ${Redacted.value(settings.accessKey)}` }
  return {
    provider: "messagebird",
    supports: (channel) => channel === "sms",
    send: Telemetry.fn("MessageBird.send")(
      (message: SmsMessage) =>
        Effect.gen(function* () {
          if (message.channel !== "sms")
            return yield* Effect.fail(GatewayHttp.unsupported(name, message.channel))
          const form = new URLSearchParams({
            originator: settings.originator,
            body: message.body,
            recipients: GatewayHttp.digitsOf(message.to),
            type: "sms",
            // Plain GSM text when the body allows it: unicode for every message, as Supabase
            // Auth asks, cuts a part from 160 characters to 70 even for ASCII.
            datacoding: "auto"
          })
          const answer = yield* GatewayHttp.postForm(name, url, form, headers, settings)
          if (!GatewayHttp.isSuccess(answer)) {
            return yield* Effect.fail(
              Option.match(Option.flatMap(answer.json, decodeErrors), {
                onNone: () => GatewayHttp.unreadable(name, answer),
                onSome: ({ errors }) => new SmsSendFailed({ message: errors[0].description })
              })
            )
          }
          const created = Option.flatMap(answer.json, decodeCreated)
          if (Option.isNone(created)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
          if (created.value.recipients.totalSentCount === 0) {
            return yield* Effect.fail(
              new SmsSendFailed({ message: `${name} sent the message to no recipient` })
            )
          }
          return created.value.id
        }),
      (message) => ({ "sms.provider": "messagebird", "sms.channel": message.channel })
    ),
    check: Option.none()
  }
}

export const layer = (settings: MessageBirdSettings): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(settings))
