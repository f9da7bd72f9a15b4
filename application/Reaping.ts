import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { JobLock } from "./ports/JobLock.js"

/**
 * Rows one statement deletes at most, as in Supabase Auth's cleanup: each batch is a short
 * transaction of its own that passes over rows a request holds locked, so a reaper never waits
 * on a request and never holds many rows, however much has piled up (a first run on an imported
 * database, or after a long outage of the reaper).
 */
export const batchSize = 100

/** Batches of one kind in one run at most: a run's length is bounded, the next run goes on. */
export const maxBatches = 100

/**
 * One run of a reaper: `drain` deletes batch after batch of one kind, each under the lock
 * `lockName` in a transaction of its own (`JobLock.runExclusive`), until a batch comes back
 * short, `maxBatches` ran, or another instance holds the lock — then every later `drain` of the
 * run stops at once too, leaving the rest to that instance. `report` is the run's report if any
 * batch ran, none if another instance held the lock from the start.
 */
export const run = (lockName: string) =>
  Effect.map(JobLock, (lock) => {
    let ran = false
    let skipped = false
    /** `remove` deletes at most `limit` rows and returns what it deleted (`size`: how many). */
    const drainAll = <A>(remove: (limit: number) => Effect.Effect<A>, size: (removed: A) => number) =>
      Effect.gen(function* () {
        const removed: Array<A> = []
        for (let batch = 0; batch < maxBatches && !skipped; batch++) {
          const outcome = yield* lock.runExclusive(lockName, remove(batchSize))
          if (Option.isNone(outcome)) {
            skipped = true
            break
          }
          ran = true
          removed.push(outcome.value)
          if (size(outcome.value) < batchSize) break
        }
        return removed
      })
    return {
      /** `drainAll` for removals that answer how many rows they deleted: the total. */
      drain: (remove: (limit: number) => Effect.Effect<number>) =>
        Effect.map(
          drainAll(remove, (count) => count),
          (counts) => counts.reduce((total, count) => total + count, 0)
        ),
      /** `drainAll` for removals that answer what they deleted: all of it, batch after batch. */
      drainAll,
      report: <R>(report: R): Option.Option<R> => (ran ? Option.some(report) : Option.none())
    }
  })

/** One run of a reaper, as `run` makes it: its `drain`, `drainAll` and `report`. */
export type Run = Effect.Effect.Success<ReturnType<typeof run>>
