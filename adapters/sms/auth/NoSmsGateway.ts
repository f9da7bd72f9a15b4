import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { SmsSender, SmsSendFailed } from "../../../application/auth/ports/SmsSender.js"

/**
 * The sender while `SMS_PROVIDER` is unset: its empty name tells the use cases that no text can
 * go out (they answer before trying), and a send that happens anyway fails as a gateway would.
 */
export const layer = Layer.succeed(SmsSender, {
  provider: "",
  supports: () => false,
  send: () => Effect.fail(new SmsSendFailed({ message: "no SMS provider is configured" })),
  check: Option.none()
})
