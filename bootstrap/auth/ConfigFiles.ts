import { readdir, readFile } from "node:fs/promises"
import { extname, join } from "node:path"
import * as Dotenv from "dotenv"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The files the auth service's variables are read from besides the environment: one file of
 * variables (`.env`, or the one `--config` names), and a directory of them (`--config-dir`), as
 * Supabase Auth reads both. A file that cannot be read is a configuration error on one line,
 * naming it.
 */

const reasons: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EISDIR: "it is a directory",
  ENOENT: "it does not exist",
  ENOTDIR: "it is not a directory",
  EPERM: "operation not permitted"
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const unreadable = (path: string, error: unknown) => {
  const code = codeOf(error)
  const reason = (code === undefined ? undefined : reasons[code]) ?? code ?? String(error)
  return ConfigError.SourceUnavailable([path], `cannot be read (${reason})`, Cause.fail(error))
}

/** The text of a file the operator named: one that does not exist is an error. */
export const required = (path: string): Effect.Effect<string, ConfigError.ConfigError> =>
  Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: (error) => unreadable(path, error) })

/** The text of a file that may be absent (`.env`, which production usually lacks): none then. */
export const optional = (path: string): Effect.Effect<Option.Option<string>, ConfigError.ConfigError> =>
  Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: (error) => error }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) =>
      codeOf(error) === "ENOENT" ? Effect.succeed(Option.none()) : Effect.fail(unreadable(path, error))
    )
  )

/** A name's extension as Supabase Auth (Go's `filepath.Ext`) sees it: `.env` is one. */
const extensionOf = (name: string) => extname(name) || (name.startsWith(".") ? name : "")

/** Go sorts a directory by the names' bytes; UTF-16 order differs from that only past U+FFFF. */
const byName = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

/**
 * The names read of a directory's files (`names`, subdirectories left out), in the order they
 * apply: the `*.env` and `*.json` files by name; where `x.env` is followed by `x.json`, only the
 * JSON is read, as Supabase Auth does.
 */
export const filesOf = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const candidates = names.filter((name) => [".env", ".json"].includes(extensionOf(name))).sort(byName)
  return candidates.filter(
    (name, i) => extensionOf(name) !== ".env" || candidates[i + 1] !== `${name.slice(0, -".env".length)}.json`
  )
}

const JsonVariables = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String }))

/** A file's variables, by its kind; a JSON file that is not one object of strings is refused. */
export const variablesOf = (name: string, text: string): Effect.Effect<Record<string, string>, string> =>
  extensionOf(name) === ".json"
    ? Effect.mapError(
        Schema.decodeUnknown(JsonVariables)(text),
        () => "expected a JSON object whose values are strings"
      )
    : Effect.succeed(Dotenv.parse(text))

/**
 * The variables of each file `directory` holds (`filesOf`), in the order they apply. Supabase
 * Auth logs a directory it cannot read and starts without it; here it stops the start, as a
 * file that does not parse does: a configuration half read could start the service with
 * defaults its operator had overridden (docs/compatibility.md).
 */
export const directory = (
  path: string
): Effect.Effect<ReadonlyArray<Record<string, string>>, ConfigError.ConfigError> =>
  Effect.gen(function* () {
    const entries = yield* Effect.tryPromise({
      try: () => readdir(path, { withFileTypes: true }),
      catch: (error) => unreadable(path, error)
    })
    const names = filesOf(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name))
    return yield* Effect.forEach(names, (name) => {
      const file = join(path, name)
      return Effect.flatMap(required(file), (read) =>
        Effect.mapError(variablesOf(name, read), (message) => ConfigError.InvalidData([file], message))
      )
    })
  })
