import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Message, MessageId } from "../../../domain/auth/Mail.js"

/**
 * The outbox could not be written (the database restarting, say): the same call may be made
 * again, and changes nothing twice.
 */
export class OutboxUnavailable extends Schema.TaggedError<OutboxUnavailable>()("OutboxUnavailable", {
  message: Schema.String
}) {}

/** A queued message handed to a worker: leased to it until the lease it was claimed with ends. */
export interface Queued {
  readonly id: MessageId
  readonly message: Message
  /** Failed attempts so far. */
  readonly attempts: number
  readonly queuedAt: Date
}

/**
 * The mail outbox: messages written with the state that needs them and delivered afterwards by
 * a worker in every instance (DeliverMail.ts). A message is leased to one worker at a time, so
 * concurrent workers never send one message twice while its lease runs, and a worker keeps
 * the leases of its attempts in progress (`extend`); a worker that dies mid-attempt leaves its
 * messages to the next claim once their lease ends, so a message may be sent again then (at
 * least once, never lost). Once delivered or given up a message's variables
 * — which hold its links and codes — are erased; what was sent to whom, when, stays.
 */
export class MailOutbox extends Context.Tag("latchkey/auth/MailOutbox")<
  MailOutbox,
  {
    /**
     * Queues a message, due at once. In the Postgres adapter it joins the transaction it runs
     * in (`Transactions.run`), so the message is queued exactly when the state it belongs to is
     * written.
     */
    readonly enqueue: (message: Message, now: Date) => Effect.Effect<MessageId>
    /**
     * Up to `max` messages due at `now` and not leased, oldest due first, leased to the caller
     * until `now + lease`. Concurrent claims never return the same message.
     */
    readonly claim: (now: Date, max: number, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<Queued>>
    /**
     * The mail server took the message. Fails only when the outbox cannot be written, so that
     * a worker can mark the message again rather than send it again.
     */
    readonly delivered: (id: MessageId, now: Date) => Effect.Effect<void, OutboxUnavailable>
    /**
     * Moves the leases of messages still being sent to `until`, so that no other worker takes
     * them while an attempt runs; a message delivered or given up meanwhile stays as it is.
     */
    readonly extend: (ids: ReadonlyArray<MessageId>, until: Date) => Effect.Effect<void, OutboxUnavailable>
    /** An attempt failed: counted, and the message is due again at `at`. */
    readonly retry: (id: MessageId, at: Date, error: string) => Effect.Effect<void>
    /** The message will not be sent: refused for good, or failing for too long. */
    readonly giveUp: (id: MessageId, now: Date, error: string) => Effect.Effect<void>
  }
>() {}
