import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { JobLock } from "../../application/ports/JobLock.js"

/** In-process exclusivity: a job already running under the same name makes others skip. */
export const layer = Layer.effect(
  JobLock,
  Effect.gen(function* () {
    const running = yield* Ref.make<ReadonlySet<string>>(new Set())
    return {
      runExclusive: (name, job) =>
        Effect.acquireUseRelease(
          Ref.modify(running, (names) =>
            names.has(name) ? [false, names] : [true, new Set([...names, name])]
          ),
          (acquired) => (acquired ? Effect.map(job, Option.some) : Effect.succeedNone),
          (acquired) =>
            acquired
              ? Ref.update(running, (names) => new Set([...names].filter((n) => n !== name)))
              : Effect.void
        )
    }
  })
)
