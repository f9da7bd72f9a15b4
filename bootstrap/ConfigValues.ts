import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as PrivateAddresses from "../adapters/outbound/PrivateAddresses.js"
import { ClientId } from "../domain/Ids.js"

/**
 * Shared parsers for environment variables. Each failure names its variable, so that the
 * start-up report (ConfigReport.ts) can print one line per problem.
 */

/** `config` parsed by `parse`; a refusal is reported on `name`, with `parse`'s message. */
export const check = <A, B>(
  name: string,
  config: Config.Config<A>,
  parse: (value: A) => Either.Either<B, string>
) =>
  // Mapped first: effect prefixes an error raised right on a primitive with its name again.
  Config.mapOrFail(
    Config.map(config, (value) => value),
    (value) => Either.mapLeft(parse(value), (message) => ConfigError.InvalidData([name], message))
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
  debug: LogLevel.Debug,
  // Also taken by Supabase Auth's logger (logrus), so its deployments' values start here too.
  warning: LogLevel.Warning,
  trace: LogLevel.Trace
}

/** `LOG_LEVEL` as the auth spec names its values; both services read it the same way. */
export const logLevel = check(
  "LOG_LEVEL",
  Config.string("LOG_LEVEL").pipe(Config.withDefault("info")),
  (value) => {
    const level = levels[value.toLowerCase()]
    return level === undefined
      ? Either.left("expected one of panic, fatal, error, warn, info, debug, trace")
      : Either.right(level)
  }
)

/** Base folder of the embedded databases; each service keeps its own sub-folder. */
export const dataDir = (service: string) =>
  Config.string("LATCHKEY_DATA_DIR").pipe(
    Config.withDefault(".latchkey"),
    Config.map((base) => `${base.replace(/\/+$/, "")}/${service}`)
  )

const isLoopbackHost = (host: string) => host === "127.0.0.1" || host === "[::1]" || host === "localhost"

/**
 * An http(s) URL without path, query or fragment, no trailing slash; http only on loopback hosts.
 * The service answers at the root of its host, and an issuer with a path would have its metadata
 * at `/.well-known/oauth-authorization-server/<path>` (RFC 8414 §3.1), which a proxy forwarding
 * paths unchanged would not bring to it: such a URL could not work.
 */
export const publicUrl = (name: string, fallback: string) =>
  check(name, Config.string(name).pipe(Config.withDefault(fallback)), (value) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      return Either.left("expected an absolute https URL")
    }
    if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
      return Either.left("expected a URL without query, fragment or credentials")
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
      return Either.left("expected an https URL (http only on 127.0.0.1, [::1] or localhost)")
    }
    if (url.pathname !== "/") {
      return Either.left("expected a URL without a path: the service answers at the root of its host")
    }
    return Either.right(url.toString().replace(/\/+$/, ""))
  })

/** What an issuer must be, for the variable of the service's private addresses. */
export const issuerExpected = (allowList: string) =>
  `expected an https URL (http only for a loopback issuer, or with ${allowList} set)`

/**
 * An OpenID issuer: an http(s) URL. Whether plain http can work depends on the private
 * addresses allowed (`plainHttpWorks`), which the service's cross-checks decide.
 */
export const issuerUrl = (name: string, allowList: string) =>
  check(name, Config.string(name), (value) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      return Either.left(issuerExpected(allowList))
    }
    return url.protocol === "https:" || url.protocol === "http:"
      ? Either.right(value)
      : Either.left(issuerExpected(allowList))
  })

/**
 * Whether an http(s) URL the service calls out to can be reached at all: https always; plain
 * http on this machine's loopback names, or anywhere once some private address is allowed,
 * since the outbound guard then decides by address at each call. Refusing the rest at start
 * keeps a secret-bearing URL that can never work from waiting for the first login to fail.
 */
export const plainHttpWorks = (value: string, allowed: PrivateAddresses.AllowList): boolean => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  return (
    url !== undefined &&
    (url.protocol === "https:" ||
      (url.protocol === "http:" && (isLoopbackHost(url.hostname) || !PrivateAddresses.isEmpty(allowed))))
  )
}

/** A client id as the domain accepts it (`ClientId`). */
export const clientId = (name: string, fallback: string) =>
  check(name, Config.string(name).pipe(Config.withDefault(fallback)), (value) =>
    Either.mapLeft(
      Schema.decodeEither(ClientId)(value),
      () => "expected 1 to 2048 printable ASCII characters without spaces"
    )
  )

export const isLoopbackUrl = (value: string): boolean => {
  try {
    return isLoopbackHost(new URL(value).hostname)
  } catch {
    return false
  }
}

const units: Record<string, Duration.Duration> = {
  second: Duration.seconds(1),
  minute: Duration.minutes(1),
  hour: Duration.hours(1),
  day: Duration.days(1)
}

/** `20/hour`: a count per second, minute, hour or day. */
export const rateLimit = (name: string, fallback: string) =>
  check(name, Config.string(name).pipe(Config.withDefault(fallback)), (value) => {
    const match = /^(\d+)\/(second|minute|hour|day)$/.exec(value.trim())
    const window = match?.[2] === undefined ? undefined : units[match[2]]
    const max = Number(match?.[1])
    return window === undefined || !(max > 0)
      ? Either.left("expected COUNT/UNIT, e.g. 20/hour (unit: second, minute, hour, day)")
      : Either.right({ max, window })
  })

/** A shared secret given in the environment: long enough not to be guessed. */
export const secret = (name: string, minimumLength: number) =>
  check(name, Config.redacted(name), (value) =>
    Redacted.value(value).length >= minimumLength
      ? Either.right(value)
      : Either.left(`expected a secret of at least ${minimumLength} characters`)
  )

export const invalid = (name: string, message: string) => ConfigError.InvalidData([name], message)

const truthy = new Set(["1", "t", "T", "TRUE", "true", "True"])
const falsy = new Set(["0", "f", "F", "FALSE", "false", "False"])

/** Whether a boolean setting's value reads as true (`bool`'s reading of a value it takes). */
export const isTrue = (value: string | undefined): boolean => value !== undefined && truthy.has(value)

/** A boolean as GoTrue (Go's strconv.ParseBool) reads it: 1/0, t/f, true/false in three cases. */
export const bool = (name: string, fallback: boolean) =>
  check(name, Config.string(name).pipe(Config.withDefault(String(fallback))), (value) =>
    truthy.has(value)
      ? Either.right(true)
      : falsy.has(value)
        ? Either.right(false)
        : Either.left("expected true or false (also 1/0, t/f)")
  )

/** A port number, 0 to 65535, in decimal. */
export const parsePort = (value: string): Either.Either<number, string> => {
  const n = Number(value)
  return /^\d+$/.test(value) && n >= 0 && n <= 65_535
    ? Either.right(n)
    : Either.left("expected a port number, 0 to 65535")
}

/** A port number under any variable name, without a default (for a name that has a fallback). */
export const port = (name: string) => check(name, Config.string(name), parsePort)

/** A port number under any variable name. */
export const portNamed = (name: string, fallback: number) => Config.withDefault(port(name), fallback)

/** A host or address to listen on, an IPv6 address without its brackets. */
export const parseListenHost = (value: string): Either.Either<string, string> =>
  /^[A-Za-z0-9.:_-]+$/.test(value) || /^\[[0-9A-Fa-f:.]+\]$/.test(value)
    ? Either.right(value.replace(/^\[(.*)\]$/, "$1"))
    : Either.left("expected a host name or an IP address, e.g. 0.0.0.0 or 127.0.0.1")

/** A host or address to listen on. */
export const listenHost = (name: string, fallback: string) =>
  check(name, Config.string(name).pipe(Config.withDefault(fallback)), parseListenHost)

/** A comma-separated list, entries trimmed, empty ones dropped (as GoTrue splits lists). */
export const list = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.map((value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "")
    )
  )

/**
 * `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` and the auth service's `AUTHSVC_` one: comma-separated IP
 * addresses and CIDR ranges (IPv4, IPv6) that outbound calls may reach besides public
 * addresses (PrivateAddresses); empty by default.
 */
export const privateAddresses = (name: string) =>
  check(name, list(name), (entries) => PrivateAddresses.parse(entries, name))

/** An HTTP header name (RFC 9110 token), trimmed. */
export const parseHeaderName = (value: string): Either.Either<string, string> =>
  /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value.trim())
    ? Either.right(value.trim())
    : Either.left("expected an HTTP header name, e.g. X-Request-Id")

/** An HTTP header name (RFC 9110 token). */
export const headerName = (name: string) => check(name, Config.string(name), parseHeaderName)
