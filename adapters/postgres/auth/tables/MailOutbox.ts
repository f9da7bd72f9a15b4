import { randomUUID } from "node:crypto"
import { type Message, MessageId } from "../../../../domain/auth/Mail.js"

/** The `mail_outbox` table: the row a message is queued as. */

/** A message's row as it is queued, due at once, under a new id. */
export const queuedRow = (message: Message, now: Date) => ({
  id: MessageId.make(randomUUID()),
  kind: message.kind,
  recipient: message.to,
  // JSON text: the user's own keys (`Data`) must stay as they are.
  variables: JSON.stringify(message.variables),
  queuedAt: now,
  dueAt: now
})

/** The columns `queuedRow` fills; the rest keep their defaults. */
export const insertColumns = ["id", "kind", "recipient", "variables", "queued_at", "due_at"] as const
