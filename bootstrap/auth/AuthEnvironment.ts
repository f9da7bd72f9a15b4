import { readFile } from "node:fs/promises"
import * as Dotenv from "dotenv"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * Where the auth service's variables come from: a `.env` file in the working directory and the
 * process environment, the environment winning, as the spec and Supabase Auth both have it.
 * (Supabase Auth reads the environment first and adds only the file's variables it lacks.)
 */
export type Variables = ReadonlyMap<string, string>

export const defaultPath = ".env"

/**
 * The variables of the file's text (none when there is no file) overlaid with the environment.
 * An empty value counts as unset, wherever it comes from: an environment `AUTHSVC_X=` still
 * hides the file's `AUTHSVC_X`, and then the default applies, rather than failing a parser on
 * an empty string as Supabase Auth does.
 */
export const merge = (
  fileText: Option.Option<string>,
  env: Readonly<Record<string, string | undefined>>
): Variables => {
  const merged = new Map<string, string>(
    Object.entries(Option.match(fileText, { onNone: () => ({}), onSome: (text) => Dotenv.parse(text) }))
  )
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) merged.set(name, value)
  }
  for (const [name, value] of merged) {
    if (value === "") merged.delete(name)
  }
  return merged
}

/** The provider the auth service's `Config`s read: names are looked up exactly as written. */
export const provider = (variables: Variables): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(new Map(variables))

const reasons: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EISDIR: "it is a directory",
  EPERM: "operation not permitted"
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/**
 * The file's text; none when it does not exist, which is the usual case in production. A file
 * that exists but cannot be read is a configuration error on one line, naming the file.
 */
export const readDotenv = (path: string): Effect.Effect<Option.Option<string>, ConfigError.ConfigError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => error
  }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) => {
      const code = codeOf(error)
      if (code === "ENOENT") return Effect.succeed(Option.none())
      const reason = (code === undefined ? undefined : reasons[code]) ?? code ?? String(error)
      return Effect.fail(
        ConfigError.SourceUnavailable([path], `cannot be read (${reason})`, Cause.fail(error))
      )
    })
  )

/** The merged variables of `path` and `env`: what `AuthConfig` reads and `AuthVariables` checks. */
export const load = (
  path: string = defaultPath,
  env: Readonly<Record<string, string | undefined>> = process.env
): Effect.Effect<Variables, ConfigError.ConfigError> =>
  Effect.map(readDotenv(path), (fileText) => merge(fileText, env))
