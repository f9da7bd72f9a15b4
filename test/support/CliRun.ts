import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/**
 * Runs a command line in process (`cli` as `Command.run` returns it) and returns what it
 * printed, standard output and errors alike, one line each.
 */
export const capture =
  <E, R>(cli: (args: ReadonlyArray<string>) => Effect.Effect<void, E, R>) =>
  (...args: Array<string>) =>
    Effect.gen(function* () {
      const lines = yield* Ref.make<Array<string>>([])
      const record = (...parts: ReadonlyArray<unknown>) =>
        Ref.update(lines, (all) => [...all, parts.join(" ")])
      const base = yield* Effect.console
      const console: Console.Console = {
        ...base,
        log: (...parts) => record(...parts),
        error: (...parts) => record(...parts)
      }
      yield* cli(["node", "latchkey", ...args]).pipe(Effect.withConsole(console))
      return (yield* Ref.get(lines)).join("\n")
    })
