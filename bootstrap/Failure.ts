import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as ConfigReport from "./ConfigReport.js"

/** Start-up failures end in one line per problem and exit code 1, never a stack trace. */
const failWith = (lines: ReadonlyArray<string>) =>
  Effect.zipRight(
    Effect.forEach(lines, (line) => Console.error(`latchkey: ${line}`)),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

const hasTag = (error: unknown): error is { readonly _tag: string; readonly message: string } =>
  typeof error === "object" && error !== null && "_tag" in error && "message" in error

/**
 * A command line @effect/cli could not parse, known by its type id: its module is not loaded
 * here, since a serving process never loads the command-line parser (cli.ts).
 */
const isUsageProblem = (error: unknown): boolean =>
  typeof error === "object" && error !== null && Symbol.for("@effect/cli/ValidationError") in error

/** A command's failure, told in one line per problem: configuration, database, or its own message. */
export const report = <R>(program: Effect.Effect<unknown, unknown, R>): Effect.Effect<unknown, never, R> =>
  Effect.catchAll(program, (error: unknown) => {
    if (isUsageProblem(error)) {
      // @effect/cli has already printed the usage problem.
      return Effect.sync(() => {
        process.exitCode = 1
      })
    }
    if (ConfigError.isConfigError(error)) {
      return failWith(ConfigReport.lines(error).map((line) => `configuration: ${line}`))
    }
    if (hasTag(error)) {
      const cause = "cause" in error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
      switch (error._tag) {
        case "SqlError":
          return failWith([`database: ${error.message}${cause}`])
        default:
          return failWith([String(error.message)])
      }
    }
    return failWith([String(error)])
  })
