import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { MessageId, Rendered } from "../../../domain/auth/Mail.js"

/**
 * The mail server did not take a message. `permanent` when it refused it for good (an SMTP
 * 5xx: no such mailbox, a rejected address); otherwise it may take it later (down, timed out,
 * a 4xx). `message` is the server's answer or the network error, without the mail's content.
 */
export class MailRefused extends Schema.TaggedError<MailRefused>()("MailRefused", {
  permanent: Schema.Boolean,
  message: Schema.String
}) {}

/**
 * Hands a rendered message to the mail server. Only the outbox's worker calls it
 * (DeliverMail.ts): requests queue their mail and never wait for a mail server. `id` is the
 * message's id in the outbox, sent as its Message-ID so that a retried message is recognisably
 * the same one.
 */
export class Mailer extends Context.Tag("latchkey/auth/Mailer")<
  Mailer,
  {
    readonly deliver: (mail: Rendered, id: MessageId) => Effect.Effect<void, MailRefused>
  }
>() {}
