import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import { Message } from "../../../../domain/auth/Mail.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently, wholeBatch } from "../Storage.js"
import type { It } from "./AuthStorage.js"

const lease = Duration.minutes(2)

const message = (to = `${randomUUID()}@example.com`) =>
  new Message({
    kind: "confirmation",
    to,
    variables: { ConfirmationURL: "https://auth.example.com/verify?token=secret", Data: { full_name: "Ada" } }
  })

/**
 * Leases away every message other tests left due, far past any time these tests use, so that
 * each test claims only its own.
 */
export const drain = Effect.flatMap(MailOutbox, (outbox) =>
  outbox.claim(new Date("2200-01-01T00:00:00Z"), 100_000, Duration.days(365 * 100))
)

export const mailOutboxContract = (it: It) =>
  describe("MailOutbox", () => {
    it.effect(
      "a queued message is claimed once while leased, again after the lease, never once delivered",
      () =>
        Effect.gen(function* () {
          const outbox = yield* MailOutbox
          yield* drain
          const queued = message()
          const id = yield* outbox.enqueue(queued, Fixtures.t0)
          const [claimed, ...rest] = yield* outbox.claim(Fixtures.t0, 10, lease)
          expect(rest).toEqual([])
          expect(claimed).toEqual({ id, message: queued, attempts: 0, queuedAt: Fixtures.t0 })
          expect(yield* outbox.claim(Time.plus(Fixtures.t0, "1 minute"), 10, lease)).toEqual([])
          // The worker died mid-attempt: the lease runs out and another worker takes it.
          const again = yield* outbox.claim(Time.plus(Fixtures.t0, "2 minutes"), 10, lease)
          expect(again.map((entry) => entry.id)).toEqual([id])
          yield* outbox.delivered(id, Time.plus(Fixtures.t0, "2 minutes"))
          expect(yield* outbox.claim(Time.plus(Fixtures.t0, "1 hour"), 10, lease)).toEqual([])
        })
    )

    it.effect("a failed attempt is due again when the retry says, counted; a message given up never is", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* drain
        const first = yield* outbox.enqueue(message(), Fixtures.t0)
        const second = yield* outbox.enqueue(message(), Time.plus(Fixtures.t0, "1 second"))
        const claimed = yield* outbox.claim(Time.plus(Fixtures.t0, "1 second"), 10, lease)
        // Oldest due first.
        expect(claimed.map((entry) => entry.id)).toEqual([first, second])
        const retryAt = Time.plus(Fixtures.t0, "30 seconds")
        yield* outbox.retry(first, retryAt, "421 try again later")
        yield* outbox.giveUp(second, Time.plus(Fixtures.t0, "2 seconds"), "550 no such mailbox")
        expect(yield* outbox.claim(Time.plus(Fixtures.t0, "29 seconds"), 10, lease)).toEqual([])
        const retried = yield* outbox.claim(retryAt, 10, lease)
        expect(retried.map((entry) => [entry.id, entry.attempts])).toEqual([[first, 1]])
        yield* outbox.delivered(first, retryAt)
        // A late answer for a message given up changes nothing.
        yield* outbox.retry(second, retryAt, "late")
        expect(yield* outbox.claim(Time.plus(Fixtures.t0, "1 day"), 10, lease)).toEqual([])
      })
    )

    it.effect("extending a lease keeps a message from other claims; a delivered one is not touched", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* drain
        const sending = yield* outbox.enqueue(message(), Fixtures.t0)
        const done = yield* outbox.enqueue(message(), Fixtures.t0)
        yield* outbox.claim(Fixtures.t0, 10, lease)
        yield* outbox.delivered(done, Time.plus(Fixtures.t0, "1 minute"))
        // Still being sent at the end of its lease: renewed just before.
        yield* outbox.extend([sending, done], Time.plus(Fixtures.t0, "4 minutes"))
        expect(yield* outbox.claim(Time.plus(Fixtures.t0, "3 minutes"), 10, lease)).toEqual([])
        const taken = yield* outbox.claim(Time.plus(Fixtures.t0, "4 minutes"), 10, lease)
        expect(taken.map((entry) => entry.id)).toEqual([sending])
        yield* outbox.extend([], Time.plus(Fixtures.t0, "1 day"))
      })
    )

    it.effect("claims at most `max`, the rest stays due", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* drain
        const ids = yield* Effect.forEach(Array.from({ length: 5 }), () =>
          outbox.enqueue(message(), Fixtures.t0)
        )
        const first = yield* outbox.claim(Fixtures.t0, 3, lease)
        const second = yield* outbox.claim(Fixtures.t0, 3, lease)
        expect(first).toHaveLength(3)
        expect([...first, ...second].map((entry) => entry.id).sort()).toEqual([...ids].sort())
      })
    )

    it.effect(`${concurrently} workers claiming at once take every message exactly once`, () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* drain
        const ids = yield* Effect.forEach(Array.from({ length: 120 }), () =>
          outbox.enqueue(message(), Fixtures.t0)
        )
        const claims = yield* Effect.all(
          Array.from({ length: concurrently }, () => outbox.claim(Fixtures.t0, 4, lease)),
          { concurrency: "unbounded" }
        )
        const claimed = claims.flat().map((entry) => entry.id)
        expect(new Set(claimed).size).toBe(claimed.length)
        const rest = yield* outbox.claim(Fixtures.t0, wholeBatch, lease)
        expect([...claimed, ...rest.map((entry) => entry.id)].sort()).toEqual([...ids].sort())
      })
    )
  })
