import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type { MessageId } from "../../domain/auth/Mail.js"
import * as MailDelivery from "../../domain/auth/MailDelivery.js"
import * as Time from "../../domain/Time.js"
import * as Telemetry from "../Telemetry.js"
import { MailComposer } from "./ports/MailComposer.js"
import { Mailer, MailRefused } from "./ports/Mailer.js"
import { MailOutbox, type Queued } from "./ports/MailOutbox.js"

/** Messages one pass claims at most. */
export const batchSize = 20
/** Attempts of one pass running at once: the SMTP adapter's pool has as many connections. */
export const concurrentAttempts = 5

/** Messages one pass claims: a batch, or more when more are sent at once. */
const claimFor = (concurrency: number) => Math.max(batchSize, concurrency)
/**
 * How long a claimed message stays with the worker that claimed it: what a send needs, since a
 * worker that dies mid-pass holds its messages that long and mail for a sign-in waits on a
 * person. The worker renews the leases of its attempts in progress every `renewEvery`, so a
 * long send keeps its message; another instance takes over within a lease once the renewals
 * stop.
 */
export const lease = Duration.seconds(10)
/** How often a pass renews the leases of its messages still being sent. */
export const renewEvery = Duration.seconds(3)
const attemptLimit = Duration.minutes(1)
/**
 * How a sent message's `delivered` mark is tried again while the outbox cannot be written (the
 * database restarting): the mark, never the send, until it lands, a few seconds apart at most.
 */
const markAgain = Schedule.exponential(Duration.millis(250)).pipe(
  Schedule.union(Schedule.spaced(Duration.seconds(5)))
)

const sent = Metric.counter("latchkey.auth.mail_sent", {
  description: "Mails the mail server took, by kind",
  incremental: true
})
const givenUp = Metric.counter("latchkey.auth.mail_given_up", {
  description: "Mails given up, by kind and reason (permanent: refused for good; expired: failing too long)",
  incremental: true
})
const retried = Metric.counter("latchkey.auth.mail_retried", {
  description: "Failed delivery attempts that will be tried again, by kind",
  incremental: true
})

const attempt = (queued: Queued) =>
  Effect.gen(function* () {
    const mailer = yield* Mailer
    const outbox = yield* MailOutbox
    const kind = queued.message.kind
    if (MailDelivery.isStale(queued.queuedAt, new Date(yield* Clock.currentTimeMillis))) {
      yield* outbox.giveUp(queued.id, new Date(yield* Clock.currentTimeMillis), "queued too long ago")
      yield* Metric.increment(Metric.tagged(Metric.tagged(givenUp, "kind", kind), "reason", "expired"))
      return yield* Effect.logWarning("mail queued too long ago; given up unsent").pipe(
        Effect.annotateLogs({ "mail.id": queued.id, "mail.kind": kind })
      )
    }
    const rendered = yield* Effect.flatMap(MailComposer, (composer) => composer.compose(queued.message))
    const outcome = yield* mailer.deliver(rendered, queued.id).pipe(
      Effect.timeoutFail({
        duration: attemptLimit,
        onTimeout: () =>
          new MailRefused({
            permanent: false,
            message: `no answer from the mail server in ${Duration.format(attemptLimit)}`
          })
      }),
      Effect.either
    )
    const now = new Date(yield* Clock.currentTimeMillis)
    if (outcome._tag === "Right") {
      yield* Metric.increment(Metric.tagged(sent, "kind", kind))
      // The mail went out: from here it is marked, never sent again, whatever it takes.
      return yield* outbox.delivered(queued.id, now).pipe(
        Effect.tapError((error) =>
          Effect.logWarning("mail sent but not yet marked delivered; marking again").pipe(
            Effect.annotateLogs({ "mail.id": queued.id, "mail.kind": kind, "outbox.error": error.message })
          )
        ),
        Effect.retry(markAgain)
      )
    }
    const failure = outcome.left
    const next = MailDelivery.afterFailure(failure, queued.attempts + 1, queued.queuedAt, now)
    // The message id and kind identify the mail; its recipient and content stay out of logs.
    const annotated = Effect.annotateLogs({
      "mail.id": queued.id,
      "mail.kind": kind,
      "mail.attempts": queued.attempts + 1,
      "mail.error": failure.message
    })
    if (next._tag === "Retry") {
      yield* outbox.retry(queued.id, next.at, failure.message)
      yield* Metric.increment(Metric.tagged(retried, "kind", kind))
      yield* Effect.logInfo("mail not delivered yet; will try again").pipe(annotated)
    } else {
      yield* outbox.giveUp(queued.id, now, failure.message)
      yield* Metric.increment(Metric.tagged(Metric.tagged(givenUp, "kind", kind), "reason", next.reason))
      yield* Effect.logWarning(
        next.reason === "permanent"
          ? "mail refused by the mail server; given up"
          : "mail failing for too long; given up"
      ).pipe(annotated)
    }
  })

/**
 * One pass of an instance's mail worker: claims the messages that are due and tries each once.
 * Returns how many it claimed, so that the worker comes back at once after a full batch.
 */
export const deliverDue = Telemetry.fn("DeliverMail.deliverDue")((concurrency: number = concurrentAttempts) =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const now = new Date(yield* Clock.currentTimeMillis)
    const due = yield* outbox.claim(now, claimFor(concurrency), lease)
    if (due.length === 0) return 0
    // The leases of the messages not yet done are renewed while the pass runs; a renewal that
    // fails is tried at the next beat (the lease outlasts a few missed ones).
    const inProgress = yield* Ref.make<ReadonlySet<MessageId>>(new Set(due.map((queued) => queued.id)))
    const renew = Effect.gen(function* () {
      const ids = [...(yield* Ref.get(inProgress))]
      const until = Time.plus(new Date(yield* Clock.currentTimeMillis), lease)
      yield* outbox.extend(ids, until).pipe(Effect.ignore)
    })
    yield* Effect.forkScoped(renew.pipe(Effect.delay(renewEvery), Effect.forever))
    yield* Effect.forEach(
      due,
      (queued) =>
        attempt(queued).pipe(
          Effect.ensuring(Ref.update(inProgress, (ids) => new Set([...ids].filter((id) => id !== queued.id))))
        ),
      { concurrency, discard: true }
    )
    return due.length
  }).pipe(Effect.scoped)
)

/**
 * An instance's mail worker: a pass, then another at once after a full batch, else after
 * `pollInterval`. A pass that fails (the database out of reach) is logged and tried again.
 */
export const deliverForever = (pollInterval: Duration.Duration, concurrency: number = concurrentAttempts) =>
  deliverDue(concurrency).pipe(
    Effect.flatMap((claimed) => (claimed < claimFor(concurrency) ? Effect.sleep(pollInterval) : Effect.void)),
    Effect.catchAllCause((cause) =>
      Effect.zipRight(Effect.logError("mail delivery pass failed", cause), Effect.sleep(pollInterval))
    ),
    Effect.forever
  )
