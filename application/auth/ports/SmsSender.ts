import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** How a code travels: a text message, or WhatsApp where the gateway offers it (Twilio). */
export const Channel = Schema.Literal("sms", "whatsapp")
export type Channel = typeof Channel.Type

/**
 * The gateway did not take a message (or could not check a code): its own words in `message`,
 * which Supabase Auth passes on to the client as `sms_send_failed`. Never the text or the code.
 */
export class SmsSendFailed extends Schema.TaggedError<SmsSendFailed>()("SmsSendFailed", {
  message: Schema.String
}) {}

/** A text to send: the number as stored (`User.Phone`, no `+`), the rendered `SMS_TEMPLATE`, and the code it carries. */
export interface SmsMessage {
  readonly to: string
  readonly body: string
  readonly channel: Channel
  /** The code in the text; gateways that write their own text (Twilio Verify) ignore it. */
  readonly code: Redacted.Redacted<string>
}

/**
 * The SMS gateway chosen by `SMS_PROVIDER`. Unlike mail, a text is sent while the request waits,
 * as in Supabase Auth: the client is told at once when the gateway refuses a number.
 */
export class SmsSender extends Context.Tag("latchkey/auth/SmsSender")<
  SmsSender,
  {
    /** `SMS_PROVIDER`, as /settings reports it. */
    readonly provider: string
    /** Whether `channel` is one this gateway delivers on. */
    readonly supports: (channel: Channel) => boolean
    /** Sends; the gateway's id of the message. */
    readonly send: (message: SmsMessage) => Effect.Effect<string, SmsSendFailed>
    /**
     * For gateways that make and check the codes themselves (Twilio Verify): whether `code` is
     * the one last sent to `to`. None: the service checks its own codes.
     */
    readonly check: Option.Option<
      (to: string, code: Redacted.Redacted<string>) => Effect.Effect<boolean, SmsSendFailed>
    >
  }
>() {}
