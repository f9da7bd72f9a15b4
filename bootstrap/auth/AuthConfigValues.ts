import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import type { Limit } from "../../application/ports/RateLimiter.js"
import * as Ban from "../../domain/Ban.js"
import * as ConfigValues from "../ConfigValues.js"
import * as GoNumbers from "./GoNumbers.js"

/**
 * Parsers for the auth service's variables, reading values as Supabase Auth does (Go's
 * envconfig over strconv and time.ParseDuration) where that is safe, and refusing what could
 * only be a mistake. Each failure names its variable (ConfigReport prints one line per problem).
 */

/** A whole number as Go's ParseInt reads it (GoNumbers), 0 or more. */
const parseWhole = (value: string): number | undefined => {
  const n = GoNumbers.integer(value.trim())?.value
  return n !== undefined && n >= 0 ? n : undefined
}

/**
 * A whole number, 0 or more: Supabase Auth's `int` settings (`JWT_EXP`, `DB_MAX_POOL_SIZE`),
 * written as Go writes integers (`3600`, `0xE10`, `3_600`; `010` is octal 8).
 */
export const wholeNumberNamed = (name: string, fallback: number) =>
  ConfigValues.check(name, Config.string(name).pipe(Config.withDefault(String(fallback))), (value) => {
    const n = parseWhole(value)
    return n === undefined ? Either.left("expected a whole number, 0 or more") : Either.right(n)
  })

/**
 * A whole number of any sign, for the `int` settings where Supabase Auth gives a negative one a
 * meaning (`PASSWORD_MIN_LENGTH` and the code lengths raised to their default, `DB_MAX_POOL_SIZE`
 * no limit), so that `-1` means the same here.
 */
export const integerNamed = (name: string, fallback: number) =>
  ConfigValues.check(name, Config.string(name).pipe(Config.withDefault(String(fallback))), (value) => {
    const n = GoNumbers.integer(value.trim())?.value
    return n === undefined ? Either.left("expected a whole number") : Either.right(n)
  })

/** A port kept as a Go `int` (`SMTP_PORT`), 0 to 65535. */
export const portNumber = (name: string) =>
  ConfigValues.check(name, Config.string(name), (value) => {
    const n = parseWhole(value)
    return n !== undefined && n <= 65_535
      ? Either.right(n)
      : Either.left("expected a port number, 0 to 65535")
  })

/** A number as Go's ParseFloat reads it (`30`, `2.5`, `1e3`), 0 or more. */
export const parseCount = (value: string): number | undefined => {
  const n = GoNumbers.float(value.trim())
  return n !== undefined && n >= 0 ? n : undefined
}

/**
 * A Go duration (`10s`, `1h30m`, `1.5h`, `300ms`; units ns, us, µs, ms, s, m, h) through the
 * one Go-duration parser of the codebase, the admin API's `ban_duration` one: its grammar is
 * exactly time.ParseDuration's without a sign. A leading `+` is Go's too and changes nothing, so
 * it is read past; a negative interval cannot work for any setting here and stays refused.
 */
const goDuration = (value: string): Either.Either<Duration.Duration, string> => {
  const unsigned = value.startsWith("+") ? value.slice(1) : value
  return unsigned === "none"
    ? Either.left("none")
    : Either.map(
        Either.mapLeft(Ban.parseBanDuration(unsigned), (error) => error.message),
        Ban.BanRequest.$match({ Unban: () => Duration.zero, BanFor: ({ duration }) => duration })
      )
}

const parseSecondsOrDuration = (value: string): Either.Either<Duration.Duration, string> => {
  const trimmed = value.trim()
  const seconds = parseWhole(trimmed)
  if (seconds !== undefined) return Either.right(Duration.seconds(seconds))
  return Either.mapLeft(goDuration(trimmed), () => "expected seconds or a Go duration, e.g. 10, 10s or 1m30s")
}

/**
 * Seconds, for a setting Supabase Auth keeps as an `int` of seconds (so a bare `10` is 10 s, as
 * there), or a Go duration such as `10s` or `1m30s`, which the spec's `string` type invites.
 */
export const secondsOrDuration = (name: string, fallback: Duration.Duration) =>
  ConfigValues.check(
    name,
    Config.string(name).pipe(Config.withDefault(`${Duration.toSeconds(fallback)}`)),
    parseSecondsOrDuration
  )

/** As `secondsOrDuration`, none when unset. */
export const optionalSecondsOrDuration = (name: string) =>
  Config.option(ConfigValues.check(name, Config.string(name), parseSecondsOrDuration))

/** `parseSecondsOrDuration`, more than zero: a period that must pass before something happens. */
const parsePositiveDuration = (value: string) =>
  Either.flatMap(parseSecondsOrDuration(value), (duration) =>
    Duration.toMillis(duration) > 0
      ? Either.right(duration)
      : Either.left("expected a duration more than 0, e.g. 24h or 30m")
  )

/** As `secondsOrDuration`, more than zero. */
export const positiveDuration = (name: string, fallback: Duration.Duration) =>
  ConfigValues.check(
    name,
    Config.string(name).pipe(Config.withDefault(`${Duration.toSeconds(fallback)}`)),
    parsePositiveDuration
  )

/**
 * As `optionalSecondsOrDuration`, more than zero when set: Supabase Auth refuses to start with a
 * session limit of zero or less (`SessionsConfiguration.Validate`).
 */
export const optionalPositiveDuration = (name: string) =>
  Config.option(ConfigValues.check(name, Config.string(name), parsePositiveDuration))

/**
 * A request count per `window`, a `float64` in Supabase Auth, which lets that many requests
 * through at once and refills at that rate; here a fixed window of `window` allows the count's
 * whole part (Go's `int(value)`, the burst there).
 */
export const requestsPer = (name: string, fallback: number, window: Duration.Duration, unit: string) =>
  ConfigValues.check(
    name,
    Config.string(name).pipe(Config.withDefault(String(fallback))),
    (value): Either.Either<Limit, string> => {
      const count = parseCount(value)
      return count !== undefined
        ? Either.right({ max: Math.floor(count), window })
        : Either.left(`expected a number of requests per ${unit}, e.g. ${fallback}`)
    }
  )

const httpUrlExpected = "expected an absolute http or https URL"

/**
 * An absolute http(s) URL, kept as written but for a trailing slash: `SITE_URL` and
 * `API_EXTERNAL_URL`, which emails and redirects are built from. Plain http is allowed on any
 * host, as in Supabase Auth: the service runs behind a TLS proxy, which may be on the same host.
 */
export const httpUrl = (name: string) =>
  ConfigValues.check(name, Config.string(name), (value) => {
    const trimmed = value.trim()
    let url: URL
    try {
      url = new URL(trimmed)
    } catch {
      return Either.left(httpUrlExpected)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left(httpUrlExpected)
    if (url.username !== "" || url.password !== "")
      return Either.left(`${httpUrlExpected} without credentials`)
    return Either.right(trimmed.replace(/\/+$/, ""))
  })

/**
 * `SITE_URL`: any absolute URL, kept as written but for a trailing slash. Supabase Auth reads it
 * as text: a mobile app's own scheme (`com.example.app://callback`) is a site URL it takes.
 */
export const siteUrl = (name: string) =>
  ConfigValues.check(name, Config.string(name), (value) => {
    const trimmed = value.trim()
    return URL.canParse(trimmed)
      ? Either.right(trimmed.replace(/\/+$/, ""))
      : Either.left("expected an absolute URL, e.g. https://example.com")
  })

/**
 * `DB_NAMESPACE`: written into SQL as the start of every table name, so only what Postgres reads
 * unquoted as part of an identifier, short enough to leave room under its 63-byte limit. Supabase
 * Auth names the schema of its tables with it, `auth` by default; this service keeps its tables
 * in the `auth` schema always, so `auth` means no prefix (docs/compatibility.md).
 */
export const tablePrefix = (name: string) =>
  ConfigValues.check(name, Config.string(name).pipe(Config.withDefault("")), (value) =>
    value === "" || value === "auth"
      ? Either.right("")
      : /^[a-z_][a-z0-9_]{0,19}$/.test(value)
        ? Either.right(value)
        : Either.left("expected at most 20 of a-z, 0-9 and _, not starting with a digit")
  )

/**
 * The names Supabase Auth's database layer takes for PostgreSQL: `postgres`, and the synonyms it
 * maps to it (`postgresql`, `pg`, `pgx`), which it starts with after a deprecation notice.
 */
export const postgresDrivers: ReadonlyArray<string> = ["postgres", "postgresql", "pg", "pgx"]

/** `DB_DRIVER`: the spec's one dialect. Unset means postgres, the only choice there is. */
export const databaseDriver = (name: string) =>
  ConfigValues.check(
    name,
    Config.string(name).pipe(Config.withDefault("postgres")),
    (value): Either.Either<"postgres", string> =>
      postgresDrivers.includes(value.trim()) ? Either.right("postgres") : Either.left("expected postgres")
  )

/** The length Supabase Auth gives a code whose configured length is out of its range. */
export const defaultCodeLength = 6

/** Whether `length` is one Supabase Auth texts and mails codes of. */
export const isCodeLength = (length: number): boolean => length >= 6 && length <= 10

/**
 * `MAILER_OTP_LENGTH`, `SMS_OTP_LENGTH`: digits of a code, 6 to 10. Another whole number is
 * read as 6, as Supabase Auth reads it; ConfigWarnings says so.
 */
export const codeLength = (name: string) =>
  Config.map(integerNamed(name, defaultCodeLength), (length) =>
    isCodeLength(length) ? length : defaultCodeLength
  )

/**
 * Supabase Auth's `Rate` (`RATE_LIMIT_EMAIL_SENT`, `RATE_LIMIT_SMS_SENT`): a number of events per
 * hour (`30`, a fraction's whole part counts), or a whole number over a Go duration (`10/1m`).
 */
export const eventsPer = (name: string, fallback: number) =>
  ConfigValues.check(
    name,
    Config.string(name).pipe(Config.withDefault(String(fallback))),
    (value): Either.Either<Limit, string> => {
      const expected = `expected a number of events per hour, or events over a Go duration, e.g. ${fallback} or 10/1m`
      const count = parseCount(value)
      if (count !== undefined) return Either.right({ max: Math.floor(count), window: Duration.hours(1) })
      const [events, over, ...rest] = value.trim().split("/")
      // Decimal only in this form: Supabase Auth reads the events with ParseUint(…, 10, 52).
      const max = /^[0-9]+$/.test(events ?? "") ? Number(events) : undefined
      if (max === undefined || over === undefined || rest.length > 0) return Either.left(expected)
      return Either.match(goDuration(over.trim()), {
        onLeft: () => Either.left(expected),
        onRight: (window) => (Duration.isZero(window) ? Either.left(expected) : Either.right({ max, window }))
      })
    }
  )
