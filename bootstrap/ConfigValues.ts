import { Config, ConfigError, Either, LogLevel, Redacted } from "effect"

/**
 * Shared parsers for environment variables. Each failure names its variable, so that the
 * start-up report (ConfigReport.ts) can print one line per problem.
 */
const check = <A, B>(name: string, config: Config.Config<A>, parse: (value: A) => Either.Either<B, string>) =>
  Config.mapOrFail(config, (value) =>
    Either.mapLeft(parse(value), (message) => ConfigError.InvalidData([name], message))
  )

export const postgresUrl = (name: string) =>
  check(name, Config.redacted(name), (value) => {
    try {
      const url = new URL(Redacted.value(value))
      return url.protocol === "postgres:" || url.protocol === "postgresql:"
        ? Either.right(value)
        : Either.left("expected a postgres:// or postgresql:// URL")
    } catch {
      return Either.left("expected a postgres:// or postgresql:// URL")
    }
  })

const levels: Record<string, LogLevel.LogLevel> = {
  panic: LogLevel.Fatal,
  fatal: LogLevel.Fatal,
  error: LogLevel.Error,
  warn: LogLevel.Warning,
  info: LogLevel.Info,
  debug: LogLevel.Debug
}

/** `LOG_LEVEL` as the auth spec names its values; both services read it the same way. */
export const logLevel = check(
  "LOG_LEVEL",
  Config.string("LOG_LEVEL").pipe(Config.withDefault("info")),
  (value) => {
    const level = levels[value.toLowerCase()]
    return level === undefined
      ? Either.left("expected one of panic, fatal, error, warn, info, debug")
      : Either.right(level)
  }
)

/** Base folder of the embedded databases; each service keeps its own sub-folder. */
export const dataDir = (service: string) =>
  Config.string("LATCHKEY_DATA_DIR").pipe(
    Config.withDefault(".latchkey"),
    Config.map((base) => `${base.replace(/\/+$/, "")}/${service}`)
  )
