import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Message, Rendered } from "../../../domain/auth/Mail.js"

/**
 * Renders a message with its kind's subject (`MAILER_SUBJECTS_<KIND>`) and template
 * (`MAILER_TEMPLATES_<KIND>`, else the built-in one) into the mail that leaves. Never fails: a
 * template that cannot be had or rendered gives way to the built-in body.
 */
export class MailComposer extends Context.Tag("latchkey/auth/MailComposer")<
  MailComposer,
  {
    readonly compose: (message: Message) => Effect.Effect<Rendered>
  }
>() {}
