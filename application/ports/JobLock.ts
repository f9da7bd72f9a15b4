import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/**
 * Runs singleton jobs (the reaper) on one instance at a time: while a job of a name runs, a
 * `runExclusive` of the same name skips at once, returning none, rather than wait. The lock is
 * released when the job ends, however it ends. The Postgres adapter locks across every
 * instance sharing the database and runs the job inside the transaction that holds the lock:
 * what the job writes through `@effect/sql` commits when it ends, or not at all if it fails.
 * The memory adapter locks within its process only, which is enough where one process owns the
 * data (the embedded database, tests), and undoes nothing when a job fails.
 */
export class JobLock extends Context.Tag("latchkey/JobLock")<
  JobLock,
  {
    readonly runExclusive: <A, E, R>(
      name: string,
      job: Effect.Effect<A, E, R>
    ) => Effect.Effect<Option.Option<A>, E, R>
  }
>() {}
