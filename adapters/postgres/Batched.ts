import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

/**
 * Group commit for the statements every request runs: calls that arrive while `maxInFlight`
 * batches are already at the database wait and go together in the next one — one statement,
 * one round trip and one commit for many requests. Under light load every call leaves in a
 * batch of its own, in the same turn of the event loop, so nothing waits for a timer.
 *
 * On a 2-core machine each round trip wakes a database process on the other core, and that
 * wake-up, not the statement, is what costs (docs/decisions/0005-hot-path.md).
 */
export interface Options<I, O, E> {
  /** Runs one batch: the outputs line up with the inputs, one for one. */
  readonly run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>
  /** Most inputs in one statement. */
  readonly maxBatch: number
  /** Most batches at the database at once; more calls than that wait for the next batch. */
  readonly maxInFlight: number
  /** Most calls waiting for a batch; `maxWaiting` unless a test wants fewer. */
  readonly maxWaiting?: number
}

/**
 * Calls that may wait for a batch at once, per batcher. With batches of 256, two at a time,
 * that is some twenty round trips' worth: a queue this long means the database has fallen
 * behind, and calls queued at its end would mostly wait out their request's timeout anyway,
 * each holding its request in memory meanwhile.
 */
export const maxWaiting = 10_000

/**
 * A call refused because `maxWaiting` calls already wait: the database is not keeping up. A
 * defect, like the database's own failures; DatabaseUnavailable counts it among them, so the
 * client gets a 503 with `Retry-After` at once instead of a slot in a queue it would time out in.
 */
export class QueueFull extends Schema.TaggedError<QueueFull>()("BatchQueueFull", {
  waiting: Schema.Number
}) {}

interface Waiting<I, O, E> {
  readonly input: I
  readonly resume: (effect: Effect.Effect<O, E>) => void
  cancelled: boolean
  /** Counted among the waiting, until it leaves in a batch or is cancelled. */
  queued: boolean
}

/**
 * A function that runs its input in the next batch. A caller interrupted while waiting leaves
 * the queue; one interrupted while its batch runs no longer hears of the outcome. `run` must be
 * all or nothing (one statement is): when a batch fails, each of its calls is tried again alone
 * and gets its own outcome. A call made while `maxWaiting` calls wait dies at once with
 * `QueueFull`.
 */
export const make = <I, O, E>(options: Options<I, O, E>) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const run = Runtime.runCallback(runtime)
    const limit = options.maxWaiting ?? maxWaiting
    let queue: Array<Waiting<I, O, E>> = []
    /** The calls in `queue` not cancelled: what the limit counts. */
    let waiting = 0
    let inFlight = 0
    let scheduled = false

    const settle = (batch: ReadonlyArray<Waiting<I, O, E>>, exit: Exit.Exit<ReadonlyArray<O>, E>) => {
      for (const [i, waiting] of batch.entries()) {
        if (waiting.cancelled) continue
        if (Exit.isFailure(exit)) {
          waiting.resume(Effect.failCause(exit.cause))
          continue
        }
        const output = exit.value[i]
        waiting.resume(
          output === undefined
            ? Effect.dieMessage(`a batch of ${batch.length} returned ${exit.value.length} outputs`)
            : Effect.succeed(output)
        )
      }
    }

    // A failed statement changed nothing, so each call of a failed batch runs again on its own:
    // one bad input, or a deadlock between two batches that locked the same rows in another
    // order, fails only the calls it has to.
    const retryAlone = (batch: ReadonlyArray<Waiting<I, O, E>>) => {
      for (const waiting of batch) {
        if (waiting.cancelled) continue
        run(options.run([waiting.input]), { onExit: (exit) => settle([waiting], exit) })
      }
    }

    const flush = () => {
      scheduled = false
      while (inFlight < options.maxInFlight) {
        const live = queue.filter((waiting) => !waiting.cancelled)
        if (live.length === 0) {
          queue = []
          return
        }
        const batch = live.slice(0, options.maxBatch)
        queue = live.slice(options.maxBatch)
        for (const taken of batch) taken.queued = false
        waiting -= batch.length
        inFlight++
        run(options.run(batch.map((waiting) => waiting.input)), {
          onExit: (exit) => {
            inFlight--
            if (Exit.isFailure(exit) && batch.length > 1) retryAlone(batch)
            else settle(batch, exit)
            schedule()
          }
        })
      }
    }

    // Calls made in the same turn of the event loop (requests read from several sockets at
    // once) share the first batch.
    const schedule = () => {
      if (scheduled || queue.length === 0 || inFlight >= options.maxInFlight) return
      scheduled = true
      setImmediate(flush)
    }

    const enqueue = (input: I) =>
      Effect.async<O, E>((resume) => {
        const call: Waiting<I, O, E> = { input, resume, cancelled: false, queued: true }
        // Cancelled calls stay in the array until the next batch leaves; while the database
        // hangs none does, so they are swept out here. At twice the limit, so that the sweep
        // costs each call O(1) on average.
        if (queue.length >= 2 * limit) queue = queue.filter((queued) => !queued.cancelled)
        queue.push(call)
        waiting++
        schedule()
        return Effect.sync(() => {
          call.cancelled = true
          if (call.queued) {
            call.queued = false
            waiting--
          }
        })
      })

    return (input: I): Effect.Effect<O, E> =>
      Effect.suspend(() => (waiting >= limit ? Effect.die(new QueueFull({ waiting })) : enqueue(input)))
  })
