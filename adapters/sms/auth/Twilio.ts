import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import {
  type Channel,
  type SmsMessage,
  SmsSender,
  SmsSendFailed
} from "../../../application/auth/ports/SmsSender.js"
import * as Telemetry from "../../../application/Telemetry.js"
import * as GatewayConfig from "./GatewayConfig.js"
import * as GatewayHttp from "./GatewayHttp.js"

/** Twilio Programmable Messaging: `SMS_PROVIDER=twilio`, texts and WhatsApp messages. */

export interface TwilioSettings extends GatewayHttp.Endpoint {
  /** `SMS_TWILIO_ACCOUNT_SID`: the account, in the URL and the user name of basic auth. */
  readonly accountSid: string
  /** `SMS_TWILIO_AUTH_TOKEN`: the password of basic auth. */
  readonly authToken: Redacted.Redacted
  /** `SMS_TWILIO_MESSAGE_SERVICE_SID`: a Messaging Service (`MG…`), else the sender's number. */
  readonly messageServiceSid: string
  /** `SMS_TWILIO_CONTENT_SID`: a WhatsApp template whose variable `1` is the code. */
  readonly contentSid: Option.Option<string>
}

/** The variables `SMS_PROVIDER=twilio` reads. */
export const variables = {
  accountSid: "AUTHSVC_SMS_TWILIO_ACCOUNT_SID",
  authToken: "AUTHSVC_SMS_TWILIO_AUTH_TOKEN",
  messageServiceSid: "AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID",
  contentSid: "AUTHSVC_SMS_TWILIO_CONTENT_SID"
} as const

/** The settings `variables` give; the content SID alone may be left out. */
export const config: Config.Config<GatewayConfig.Reading<TwilioSettings>> = Config.all({
  needed: GatewayConfig.all({
    accountSid: GatewayConfig.text(variables.accountSid),
    authToken: GatewayConfig.secret(variables.authToken),
    messageServiceSid: GatewayConfig.text(variables.messageServiceSid)
  }),
  contentSid: GatewayConfig.optionalText(variables.contentSid)
}).pipe(
  Config.map(({ contentSid, needed }) => Either.map(needed, (settings) => ({ ...settings, contentSid })))
)

export const defaultBaseUrl = "https://api.twilio.com"

export const name = "Twilio"

/** Basic auth of an account SID (or API key) and its secret, as both Twilio APIs take it. */
export const basicAuth = (user: string, secret: Redacted.Redacted): string =>
  `Basic ${Buffer.from(`${user}:${Redacted.value(secret)}`).toString("base64")}`

// Twilio's error resource; `more_info` is a link to the error code's page, left out of the message.
const ErrorBody = Schema.Struct({ message: Schema.String })
const decodeError = Schema.decodeUnknownOption(ErrorBody)

/** A Twilio API's refusal: its `message`, else what little the answer says. */
export const refusal = (gateway: string, answer: GatewayHttp.Answer): SmsSendFailed =>
  Option.match(Option.flatMap(answer.json, decodeError), {
    onNone: () => GatewayHttp.unreadable(gateway, answer),
    onSome: (body) => new SmsSendFailed({ message: body.message })
  })

const MessageResource = Schema.Struct({
  sid: Schema.String,
  status: Schema.optional(Schema.NullOr(Schema.String)),
  error_message: Schema.optional(Schema.NullOr(Schema.String))
})
const decodeMessage = Schema.decodeUnknownOption(MessageResource)

// A message Twilio took can already be known lost when the answer comes back.
const lost = new Set(["failed", "undelivered"])

// A sender written as a number (not a Messaging Service or an alphanumeric id) takes the
// `whatsapp:` prefix on that channel, as the recipient does.
const isPhoneNumber = (sender: string): boolean => /^[1-9][0-9]{1,14}$/.test(GatewayHttp.digitsOf(sender))

const channels: ReadonlySet<Channel> = new Set(["sms", "whatsapp"])

/** The form of one message: the sender as a Messaging Service or a number, WhatsApp's prefixes. */
const formOf = (settings: TwilioSettings, message: SmsMessage): URLSearchParams => {
  const whatsapp = message.channel === "whatsapp"
  const to = GatewayHttp.withPlus(message.to)
  const sender = settings.messageServiceSid
  const form = new URLSearchParams({ To: whatsapp ? `whatsapp:${to}` : to })
  if (sender.startsWith("MG")) form.set("MessagingServiceSid", sender)
  else form.set("From", whatsapp && isPhoneNumber(sender) ? `whatsapp:${sender}` : sender)
  if (whatsapp && Option.isSome(settings.contentSid)) {
    // WhatsApp lets a business start a conversation only with an approved template.
    form.set("ContentSid", settings.contentSid.value)
    form.set("ContentVariables", JSON.stringify({ "1": Redacted.value(message.code) }))
  } else {
    form.set("Body", message.body)
  }
  return form
}

export const make = (settings: TwilioSettings): Context.Tag.Service<SmsSender> => {
  const url = GatewayHttp.urlOf(
    settings,
    defaultBaseUrl,
    `/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`
  )
  const headers = { authorization: basicAuth(settings.accountSid, settings.authToken) }
  return {
    provider: "twilio",
    supports: (channel) => channels.has(channel),
    send: Telemetry.fn("Twilio.send")(
      (message: SmsMessage) =>
        Effect.gen(function* () {
          const answer = yield* GatewayHttp.postForm(name, url, formOf(settings, message), headers, settings)
          if (!GatewayHttp.isSuccess(answer)) return yield* Effect.fail(refusal(name, answer))
          const sent = Option.flatMap(answer.json, decodeMessage)
          if (Option.isNone(sent)) return yield* Effect.fail(GatewayHttp.unreadable(name, answer))
          const status = sent.value.status ?? ""
          if (lost.has(status)) {
            return yield* Effect.fail(
              new SmsSendFailed({
                message: sent.value.error_message ?? `${name} reported the message ${status}`
              })
            )
          }
          return sent.value.sid
        }),
      (message) => ({ "sms.provider": "twilio", "sms.channel": message.channel })
    ),
    check: Option.none()
  }
}

export const layer = (settings: TwilioSettings): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(settings))
