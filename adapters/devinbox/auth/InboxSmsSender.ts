import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import * as Telemetry from "../../../application/Telemetry.js"
import { DevInbox } from "../DevInbox.js"

/** What /settings reports as `sms_provider` while the development inbox takes the texts. */
export const provider = "inbox"

/**
 * The SMS gateway of `latchkey dev`: every text, on either channel, is kept in the development
 * inbox instead of being sent, so that phone sign-ups and codes work without a gateway's account.
 * The service checks its own codes, as with any gateway but Twilio Verify.
 */
export const make = (inbox: DevInbox["Type"]): SmsSender["Type"] => ({
  provider,
  supports: () => true,
  send: Telemetry.fn("InboxSmsSender.send")((message) =>
    Effect.map(
      inbox.add({
        kind: "sms",
        from: "",
        // Shown as a phone shows a number: E.164 with its `+` (stored numbers have none).
        to: [`+${message.to}`],
        subject: Option.none(),
        text: message.body,
        html: Option.none()
      }),
      (kept) => kept.id
    )
  ),
  check: Option.none()
})

export const layer: Layer.Layer<SmsSender, never, DevInbox> = Layer.effect(
  SmsSender,
  Effect.map(DevInbox, make)
)
