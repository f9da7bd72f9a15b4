import { closeSync, openSync, writeSync } from "node:fs"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Telemetry from "../../application/Telemetry.js"

export class LogFileError extends Schema.TaggedError<LogFileError>()("LogFileError", {
  message: Schema.String
}) {}

const levelName = (level: LogLevel.LogLevel): string => level.label.toLowerCase()

const text = (message: unknown): string => {
  if (typeof message === "string") return message
  if (Array.isArray(message)) return message.map(text).join(" ")
  return Inspectable.toStringUnknown(message, 0)
}

/** `client.id` → `client_id`: log keys as log pipelines expect them. */
const logKey = (key: string) => key.replaceAll(".", "_")

/**
 * One JSON object per line: `level`, `time`, `msg`, then what is known about the request (its
 * id, route, method, status, duration, the client and user ids the use cases learned), then
 * the line's own annotations and, for failures, the cause. Ids only: nothing that reaches a
 * log is a token, code, secret or password.
 */
export const format = (options: Logger.Logger.Options<unknown>): string => {
  const line: Record<string, unknown> = {
    level: levelName(options.logLevel),
    time: options.date.toISOString(),
    msg: text(options.message)
  }
  const facts = FiberRefs.getOrDefault(options.context, Telemetry.currentFacts)
  if (facts !== undefined) for (const key in facts) line[logKey(key)] = facts[key]
  for (const [key, value] of HashMap.toEntries(options.annotations)) line[logKey(key)] = value
  if (!Cause.isEmpty(options.cause)) line.error = Cause.pretty(options.cause, { renderErrorCause: true })
  return `${JSON.stringify(line)}\n`
}

/**
 * The services' logger: JSON lines on stdout and, with `LOG_FILE`, appended to that file too.
 * Writes are synchronous, so a line is out before the process can exit on a fatal error. A file
 * that cannot be opened stops the start (`unopenable: "refuse"`, the oauth service), or is left
 * out with a warning line (`"warn"`, the auth service, as Supabase Auth logs on without it), or
 * without one (`"quiet"`, a logger beside the service's own, which says it).
 */
export const layer = (options: {
  readonly file: string | undefined
  /** The variable that named the file, for the one line about it. */
  readonly variable: string
  readonly unopenable?: "refuse" | "warn" | "quiet"
}) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const file = options.file
      const opened =
        file === undefined
          ? Either.right(undefined)
          : yield* Effect.either(
              Effect.acquireRelease(
                Effect.try({
                  try: () => openSync(file, "a"),
                  catch: (cause) =>
                    new LogFileError({
                      message: `${options.variable}: cannot open ${file} for appending: ${String(cause)}`
                    })
                }),
                (fd) => Effect.sync(() => closeSync(fd))
              )
            )
      const unopenable = options.unopenable ?? "refuse"
      if (Either.isLeft(opened) && unopenable === "refuse") return yield* opened.left
      const fd = Either.getOrUndefined(opened)
      const logger = Logger.make((entry) => {
        const line = format(entry)
        process.stdout.write(line)
        if (fd !== undefined) writeSync(fd, line)
      })
      const replaced = Logger.replace(Logger.defaultLogger, logger)
      if (Either.isRight(opened) || unopenable === "quiet") return replaced
      // Said through this logger alone, after it is in place, in turn: layers merged are built
      // in fibers of their own, and a logger put in place there would outlive the layer's scope
      // in the fiber that built the service.
      const said = Effect.logWarning(`${opened.left.message}: lines go to stdout only`).pipe(
        Effect.locallyWith(FiberRef.currentLoggers, () => HashSet.make(logger))
      )
      return Layer.effectDiscard(said).pipe(Layer.provideMerge(replaced))
    })
  )
