import { availableParallelism } from "node:os"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * Admission to password hashing, the one CPU-bound thing a request does. The hashing runs on
 * threads of its own (HashingThreads.ts), so the event loop stays free, but nothing else bounds
 * how much work a storm of sign-ins queues there: each argon2id call holds 19 MiB while it runs.
 *
 * So at most `concurrency` hashings are handed to the threads at once (each thread runs one and
 * holds its next, HashingThreads.tasksPerThread) and at most `queue` more wait for a turn; a
 * call beyond that dies at once with `HashingBusy` rather than waiting out its request's
 * timeout in a queue that only grows.
 *
 * Figures on a 2-core machine: an argon2id verify (19 MiB, t=2) takes ~6 ms, a cost-10 bcrypt
 * verify ~45 ms. With the production hasher's sizes there (two threads holding 4, 64 waiting)
 * the last in line waits about 0.2 s behind argon2 hashes, 1.5 s behind imported bcrypt ones,
 * and hashing holds at most 2 × 19 MiB. A waiting call holds only its request.
 */
export interface Options {
  /** Hashings handed to the threads at once; `defaultConcurrency` unless set. */
  readonly concurrency?: number
  /** Calls waiting for a turn; `queuePerSlot` per running slot unless set. */
  readonly queue?: number
}

/** Calls that may wait per running slot: some 32 hashes' worth of delay at the end of the line. */
export const queuePerSlot = 32

/**
 * One hashing per CPU: more would only share the same cores. The hashing threads yield to the
 * event loop (HashingThreads.ts), so using every core costs requests nothing.
 */
export const defaultConcurrency = (): number => Math.max(1, availableParallelism())

/**
 * A call refused because the gate's queue is full: hashing is not keeping up with sign-ins.
 * A defect, like `Batched.QueueFull`: a server that hashes passwords counts it among the
 * failures its `isUnavailable` recognises, so the client gets a 503 with `Retry-After` at once
 * instead of a place in a queue it would time out in.
 */
export class HashingBusy extends Schema.TaggedError<HashingBusy>()("HashingBusy", {
  running: Schema.Number,
  waiting: Schema.Number
}) {}

export interface HashingGate {
  /**
   * Runs `work` in a free slot, waiting for one in the queue if needed. Waiting can be
   * interrupted; running cannot: native hashing goes on in its thread whatever the caller does,
   * so its slot stays taken until it ends, and interrupting a caller never frees a slot early.
   */
  readonly run: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (options: Options = {}): Effect.Effect<HashingGate> =>
  Effect.suspend(() => {
    const concurrency = options.concurrency ?? defaultConcurrency()
    const queue = options.queue ?? queuePerSlot * concurrency
    if (!Number.isInteger(concurrency) || concurrency < 1 || !Number.isInteger(queue) || queue < 0) {
      return Effect.dieMessage(`hashing gate: ${concurrency} slots and ${queue} waiting is not a gate`)
    }
    return Effect.map(Effect.makeSemaphore(concurrency), (semaphore): HashingGate => {
      /** Calls admitted and not yet ended: those running and those waiting for a slot. */
      let admitted = 0
      return {
        run: (work) =>
          // Uninterruptible between the count and the finalizer that undoes it, so an interrupted
          // caller cannot leave a phantom behind; `restore` lets it be interrupted while waiting.
          Effect.uninterruptibleMask((restore) =>
            Effect.suspend(() => {
              if (admitted >= concurrency + queue) {
                return Effect.die(
                  new HashingBusy({
                    running: Math.min(admitted, concurrency),
                    waiting: Math.max(0, admitted - concurrency)
                  })
                )
              }
              admitted++
              return restore(semaphore.take(1)).pipe(
                Effect.zipRight(Effect.ensuring(work, semaphore.release(1))),
                Effect.ensuring(
                  Effect.sync(() => {
                    admitted--
                  })
                )
              )
            })
          )
      }
    })
  })
