import { Context, type Effect, type Option } from "effect"

/** Runs singleton jobs (the reaper) on one instance at a time; others skip rather than wait. */
export class JobLock extends Context.Tag("latchkey/JobLock")<
  JobLock,
  {
    readonly runExclusive: <A, E, R>(
      name: string,
      job: Effect.Effect<A, E, R>
    ) => Effect.Effect<Option.Option<A>, E, R>
  }
>() {}
