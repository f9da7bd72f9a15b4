import * as Dotenv from "dotenv"
import type * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as SourceOptions from "../../adapters/cli/auth/SourceOptions.js"
import * as ConfigFiles from "./ConfigFiles.js"

/**
 * Where the auth service's variables come from: a `.env` file in the working directory (or the
 * file `--config` names), the files of a `--config-dir`, and the process environment. The
 * environment wins, as the spec and Supabase Auth both have it for `.env`; then the directory's
 * files, a later one over an earlier (ConfigFiles.ts), then the file. (Supabase Auth lets a
 * `--config` file and the directory's files win over the environment: docs/compatibility.md.)
 */
export type Variables = ReadonlyMap<string, string>

export const defaultPath = ".env"

/** What the `latchkey auth` command running was told to read besides the environment. */
export type Sources = SourceOptions.Sources

/** The sources of the command running: by default `.env` alone. */
export class ConfigSources extends Context.Reference<ConfigSources>()("latchkey/auth/ConfigSources", {
  defaultValue: (): Sources => ({ file: Option.none(), directory: Option.none() })
}) {}

/**
 * The variables of the file's text (none when there is no file), overlaid with those of the
 * directory's files in order, then with the environment. An empty value counts as unset,
 * wherever it comes from: an environment `AUTHSVC_X=` still hides the file's `AUTHSVC_X`, and
 * then the default applies, rather than failing a parser on an empty string as Supabase Auth does.
 */
export const merge = (
  fileText: Option.Option<string>,
  env: Readonly<Record<string, string | undefined>>,
  directory: ReadonlyArray<Record<string, string>> = []
): Variables => {
  const merged = new Map<string, string>(
    Object.entries(Option.match(fileText, { onNone: () => ({}), onSome: (text) => Dotenv.parse(text) }))
  )
  for (const [name, value] of directory.flatMap((file) => Object.entries(file))) merged.set(name, value)
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

/** The merged variables of `sources` and `env`: what `AuthConfig` reads and `AuthVariables` checks. */
export const loadFrom = (
  sources: Sources,
  env: Readonly<Record<string, string | undefined>> = process.env
): Effect.Effect<Variables, ConfigError.ConfigError> =>
  Effect.all([
    Option.match(sources.file, {
      onNone: () => ConfigFiles.optional(defaultPath),
      onSome: (path) => Effect.map(ConfigFiles.required(path), Option.some)
    }),
    Option.match(sources.directory, {
      onNone: () => Effect.succeed([]),
      onSome: ConfigFiles.directory
    })
  ]).pipe(Effect.map(([fileText, directory]) => merge(fileText, env, directory)))

/** The merged variables of the running command's sources (`ConfigSources`) and the environment. */
export const load = Effect.flatMap(ConfigSources, (sources) => loadFrom(sources))
