import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import * as MailOutboxMemory from "../../../adapters/memory/auth/MailOutboxMemory.js"
import * as DeliverMail from "../../../application/auth/DeliverMail.js"
import { MailComposer } from "../../../application/auth/ports/MailComposer.js"
import { Mailer } from "../../../application/auth/ports/Mailer.js"
import { MailOutbox, OutboxUnavailable } from "../../../application/auth/ports/MailOutbox.js"
import { Message, type MessageId } from "../../../domain/auth/Mail.js"

/**
 * The mail worker under faults, on the memory outbox and TestClock: a mail that went out is
 * marked delivered however long the outbox takes to answer again, never sent again; a worker
 * that dies leaves its mail to another within a lease; a long send keeps its lease.
 */

const message = () =>
  new Message({
    kind: "magic_link",
    to: `${crypto.randomUUID()}@example.com`,
    variables: { ConfirmationURL: "https://auth.example.com/verify?token=t" }
  })

const composer = Layer.succeed(MailComposer, {
  compose: (queued) => Effect.succeed({ to: queued.to, subject: "s", html: "<p>h</p>", text: "h" })
})

/** A mail server that takes every message after `takes`, and remembers what it took. */
const mailerTaking = (sent: Ref.Ref<ReadonlyArray<MessageId>>, takes: Duration.Duration = Duration.zero) =>
  Layer.succeed(Mailer, {
    deliver: (_mail, id) => Effect.sleep(takes).pipe(Effect.zipRight(Ref.update(sent, (all) => [...all, id])))
  })

/** The memory outbox whose first `failures` delivered marks fail as a restarting database does. */
const outboxFailingMarks = (failures: number) =>
  Layer.effect(
    MailOutbox,
    Effect.gen(function* () {
      const inner = yield* MailOutbox
      const left = yield* Ref.make(failures)
      return {
        ...inner,
        delivered: (id: MessageId, now: Date) =>
          Effect.flatMap(
            Ref.getAndUpdate(left, (n) => n - 1),
            (n) =>
              n > 0
                ? Effect.fail(new OutboxUnavailable({ message: "the database system is shutting down" }))
                : inner.delivered(id, now)
          )
      }
    })
  ).pipe(Layer.provide(MailOutboxMemory.layer))

const now = Effect.map(TestClock.currentTimeMillis, (millis) => new Date(millis))

describe("DeliverMail under faults, on the memory outbox and TestClock", () => {
  it.effect("a sent mail whose delivered mark fails is marked again until it lands, and sent once", () =>
    Effect.gen(function* () {
      const sent = yield* Ref.make<ReadonlyArray<MessageId>>([])
      yield* Effect.gen(function* () {
        const outbox = yield* MailOutbox
        const id = yield* outbox.enqueue(message(), yield* now)
        const pass = yield* Effect.fork(DeliverMail.deliverDue())
        // The mark is tried again a few times, seconds apart at most, while the send is not.
        yield* TestClock.adjust(Duration.seconds(30))
        expect(yield* Fiber.join(pass)).toBe(1)
        expect(yield* Ref.get(sent)).toEqual([id])
        // Marked delivered: long after any lease, nothing is due.
        yield* TestClock.adjust(Duration.hours(1))
        expect(yield* outbox.claim(yield* now, 10, DeliverMail.lease)).toEqual([])
        expect(yield* DeliverMail.deliverDue()).toBe(0)
        expect(yield* Ref.get(sent)).toEqual([id])
      }).pipe(Effect.provide(Layer.mergeAll(outboxFailingMarks(3), composer, mailerTaking(sent))))
    })
  )

  it.effect("a worker killed after claiming leaves its mail to another within one lease", () =>
    Effect.gen(function* () {
      const sent = yield* Ref.make<ReadonlyArray<MessageId>>([])
      yield* Effect.gen(function* () {
        const outbox = yield* MailOutbox
        const id = yield* outbox.enqueue(message(), yield* now)
        // Another instance claims the mail and is killed: nothing renews its lease.
        expect((yield* outbox.claim(yield* now, 10, DeliverMail.lease)).map((queued) => queued.id)).toEqual([
          id
        ])
        expect(yield* DeliverMail.deliverDue()).toBe(0)
        yield* TestClock.adjust(DeliverMail.lease)
        expect(yield* DeliverMail.deliverDue()).toBe(1)
        expect(yield* Ref.get(sent)).toEqual([id])
        expect(Duration.lessThanOrEqualTo(DeliverMail.lease, Duration.seconds(15))).toBe(true)
      }).pipe(Effect.provide(Layer.mergeAll(MailOutboxMemory.layer, composer, mailerTaking(sent))))
    })
  )

  it.effect("a send that takes longer than a lease keeps its mail from other workers", () =>
    Effect.gen(function* () {
      const sent = yield* Ref.make<ReadonlyArray<MessageId>>([])
      yield* Effect.gen(function* () {
        const outbox = yield* MailOutbox
        const id = yield* outbox.enqueue(message(), yield* now)
        const pass = yield* Effect.fork(DeliverMail.deliverDue())
        // Four leases into the send, another worker finds nothing to take.
        for (let beat = 0; beat < 8; beat++) {
          yield* TestClock.adjust(Duration.seconds(5))
          expect(yield* outbox.claim(yield* now, 10, DeliverMail.lease)).toEqual([])
        }
        yield* TestClock.adjust(Duration.seconds(10))
        expect(yield* Fiber.join(pass)).toBe(1)
        expect(yield* Ref.get(sent)).toEqual([id])
        yield* TestClock.adjust(Duration.hours(1))
        expect(yield* outbox.claim(yield* now, 10, DeliverMail.lease)).toEqual([])
      }).pipe(
        Effect.provide(
          Layer.mergeAll(MailOutboxMemory.layer, composer, mailerTaking(sent, Duration.seconds(45)))
        )
      )
    })
  )
})
