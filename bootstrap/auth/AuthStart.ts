import { randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import * as Cause from "effect/Cause"
import type * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as OutboundReach from "../OutboundReach.js"
import * as AuthConfig from "./AuthConfig.js"
import * as AuthEnvironment from "./AuthEnvironment.js"
import * as AuthVariables from "./AuthVariables.js"
import * as ConfigWarnings from "./ConfigWarnings.js"
import * as GoTrueNames from "./GoTrueNames.js"

/** How the auth service is being started. */
export type Mode =
  /** `latchkey auth serve`: alone, on `AUTHSVC_API_PORT`, else `PORT`. */
  | "alone"
  /** `latchkey serve`: beside the oauth service, which owns `PORT`; the auth service takes `AUTHSVC_API_PORT` or 8081. */
  | "beside"
  /** `latchkey dev` (`npm start`): beside, with development defaults for what is unset. */
  | "dev"

/** Requests per client address per window under `latchkey dev`: more than a test suite makes. */
export const developmentRequestLimit = 10_000

/**
 * What `npm start` fills in when unset: an application on localhost:3000, this service on
 * localhost:8081, listening on loopback only (a development server is not the network's),
 * phone and anonymous sign-ins on. Addresses and numbers are confirmed as in
 * production: the mail and the texts go to the development inbox (bootstrap/DevInbox.ts). The
 * hourly caps on messages are raised: a developer trying flows sends more than 30 an hour, and
 * nothing leaves the machine. So are the limits per client address: an application's test
 * suite signs up and in from one address many times a minute, and Supabase Auth under the
 * Supabase CLI, which sets no `RATE_LIMIT_HEADER`, counts none of it. Outbound calls may reach
 * this machine's loopback, where a developer runs an identity provider or a template server.
 */
export const developmentDefaults: ReadonlyMap<string, string> = new Map([
  ["AUTHSVC_SITE_URL", "http://localhost:3000"],
  ["AUTHSVC_API_EXTERNAL_URL", "http://localhost:8081"],
  ["AUTHSVC_API_HOST", "127.0.0.1"],
  ["AUTHSVC_EXTERNAL_PHONE_ENABLED", "true"],
  ["AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED", "true"],
  ["AUTHSVC_RATE_LIMIT_EMAIL_SENT", "1000"],
  ["AUTHSVC_RATE_LIMIT_SMS_SENT", "1000"],
  ["AUTHSVC_RATE_LIMIT_OTP", String(developmentRequestLimit)],
  ["AUTHSVC_RATE_LIMIT_VERIFY", String(developmentRequestLimit)],
  ["AUTHSVC_RATE_LIMIT_TOKEN_REFRESH", String(developmentRequestLimit)],
  ["AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS", String(developmentRequestLimit)],
  ["AUTHSVC_RATE_LIMIT_PASSKEY", String(developmentRequestLimit)],
  ["AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", String(developmentRequestLimit)],
  [AuthConfig.allowedPrivateAddressesVariable, OutboundReach.developmentDefault]
])

/**
 * Where `npm start` sends mail when `AUTHSVC_SMTP_HOST` is unset: the development inbox's own
 * SMTP server on loopback, which listens on `AUTHSVC_SMTP_PORT`; a second between two mails of a
 * kind, since none leaves the machine. Each is filled in only when unset.
 */
export const inboxMailDefaults: ReadonlyMap<string, string> = new Map([
  ["AUTHSVC_SMTP_HOST", "127.0.0.1"],
  ["AUTHSVC_SMTP_PORT", "54325"],
  ["AUTHSVC_SMTP_ADMIN_EMAIL", "noreply@localhost"],
  ["AUTHSVC_SMTP_MAX_FREQUENCY", "1s"]
])

/**
 * Where `latchkey dev` keeps the JWT secret it made when `AUTHSVC_JWT_SECRET` is unset: in the
 * data folder (`LATCHKEY_DATA_DIR`, else `.latchkey`), beside the embedded databases, so that the
 * API keys it prints stay valid across restarts.
 */
export const devSecretPath = (loaded: AuthEnvironment.Variables): string =>
  `${(loaded.get("LATCHKEY_DATA_DIR") ?? ".latchkey").replace(/\/+$/, "")}/dev-jwt-secret`

/**
 * The development JWT secret: the one kept at `path`, or a new one of 256 random bits written
 * there (readable by the owner alone). Random rather than a well-known value: `latchkey dev`
 * listens on every address unless told otherwise, and whoever holds the secret can sign a
 * service_role key, so one published secret would open every developer's admin API to their
 * network.
 */
export const devSecret = (path: string): Effect.Effect<string, ConfigError.ConfigError> =>
  Effect.tryPromise({
    try: async () => {
      const kept = await readFile(path, "utf8").then(
        (text) => text.trim(),
        (error: unknown) => {
          if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") {
            return ""
          }
          throw error
        }
      )
      if (kept.length >= 32) return kept
      const made = randomBytes(32).toString("base64url")
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, `${made}\n`, { mode: 0o600 })
      return made
    },
    catch: (error) =>
      ConfigError.SourceUnavailable(
        [path],
        `latchkey dev keeps its JWT secret there, and it cannot be read or written (${String(error)}); set AUTHSVC_JWT_SECRET instead`,
        Cause.fail(error)
      )
  })

/** Under `latchkey dev`, a mail server the user names wins over the development inbox's. */
export const mailsToInbox = (mode: Mode, loaded: AuthEnvironment.Variables) =>
  mode === "dev" && !loaded.has("AUTHSVC_SMTP_HOST")

/**
 * The variables as read (`.env` and the environment), adjusted for `mode`; under `dev`,
 * `jwtSecret` (devSecret) is the `AUTHSVC_JWT_SECRET` when none is set.
 */
export const adjust = (
  mode: Mode,
  loaded: AuthEnvironment.Variables,
  jwtSecret?: string
): AuthEnvironment.Variables => {
  const adjusted = new Map(loaded)
  if (mode !== "alone") adjusted.delete("PORT")
  if (mode === "dev") {
    const defaults = mailsToInbox(mode, loaded)
      ? [...developmentDefaults, ...inboxMailDefaults]
      : [...developmentDefaults]
    if (jwtSecret !== undefined) defaults.push(["AUTHSVC_JWT_SECRET", jwtSecret])
    for (const [name, value] of defaults) if (!adjusted.has(name)) adjusted.set(name, value)
  }
  return adjusted
}

/**
 * The variables the auth service reads in `mode`: `.env` and the environment, Supabase Auth's
 * names read as ours (GoTrueNames), adjusted for `mode`.
 */
export const variables = (mode: Mode): Effect.Effect<AuthEnvironment.Variables, ConfigError.ConfigError> =>
  Effect.map(AuthEnvironment.load, (loaded) => adjust(mode, GoTrueNames.translate(loaded).variables))

/** `db` with its URL's variable as the operator wrote it: Supabase Auth's name, if it was that. */
const asWritten = (
  db: AuthConfig.DatabaseConfig,
  sources: ReadonlyMap<string, string>
): AuthConfig.DatabaseConfig => ({
  ...db,
  urlVariable: sources.get(db.urlVariable) ?? db.urlVariable
})

/** `config` read from the variables as `mode` reads them, with the URL's variable as written. */
const readFrom = <A extends { readonly db: AuthConfig.DatabaseConfig }>(
  mode: Mode,
  config: Config.Config<A>,
  loaded: AuthEnvironment.Variables
): Effect.Effect<A, ConfigError.ConfigError> => {
  const translated = GoTrueNames.translate(loaded)
  return Effect.map(
    Effect.withConfigProvider(config, AuthEnvironment.provider(adjust(mode, translated.variables))),
    (read) => ({ ...read, db: asWritten(read.db, translated.sources) })
  )
}

/** What the auth service starts with. */
export interface Loaded {
  readonly config: AuthConfig.AuthConfig
  /** Warnings about the configuration (AuthVariables.warnings, ConfigWarnings). */
  readonly warnings: ReadonlyArray<string>
  /** Start-up lines that are no warning: which of Supabase Auth's names were read. */
  readonly notices: ReadonlyArray<string>
  /** The variables the configuration was read from, development defaults included. */
  readonly variables: AuthEnvironment.Variables
  /**
   * `latchkey dev` without `AUTHSVC_SMTP_HOST`: the mail goes to the development inbox, which
   * must receive it on `config.smtp`'s port.
   */
  readonly mailToInbox: boolean
  /** The variables `latchkey dev` filled in because they were unset. */
  readonly defaulted: ReadonlySet<string>
  /** The variables that set the port in `mode`, as the line that says it is taken names them. */
  readonly portVariables: string
  /** Supabase Auth's name an operator wrote for one of ours, by ours (GoTrueNames). */
  readonly writtenNames: ReadonlyMap<string, string>
}

/** The variables that set the auth service's port: `PORT` is the oauth service's beside it. */
export const portVariablesOf = (mode: Mode) =>
  mode === "alone" ? "AUTHSVC_API_PORT, else PORT" : "AUTHSVC_API_PORT"

/** The configuration and what to say about it, from variables as read, for `mode`. */
export const fromVariables = (
  mode: Mode,
  loaded: AuthEnvironment.Variables,
  jwtSecret?: string
): Effect.Effect<Loaded, ConfigError.ConfigError> =>
  Effect.gen(function* () {
    const translated = GoTrueNames.translate(loaded)
    const vars = adjust(mode, translated.variables, jwtSecret)
    const read = yield* Effect.withConfigProvider(AuthConfig.server, AuthEnvironment.provider(vars))
    const config = { ...read, db: asWritten(read.db, translated.sources) }
    return {
      config,
      warnings: [
        ...AuthVariables.warnings(vars, translated.sources),
        ...ConfigWarnings.warnings(config, vars, translated.sources)
      ],
      notices: GoTrueNames.notice(translated),
      variables: vars,
      mailToInbox: mailsToInbox(mode, translated.variables),
      defaulted: new Set([...vars.keys()].filter((name) => !translated.variables.has(name))),
      portVariables: portVariablesOf(mode),
      writtenNames: translated.sources
    }
  })

/**
 * The configuration and what to say about it, for `mode`. Under `dev` without a JWT secret, the
 * development secret (devSecret) is read or made first.
 */
export const load = (mode: Mode): Effect.Effect<Loaded, ConfigError.ConfigError> =>
  Effect.flatMap(AuthEnvironment.load, (loaded) =>
    mode === "dev" && !GoTrueNames.translate(loaded).variables.has("AUTHSVC_JWT_SECRET")
      ? Effect.flatMap(devSecret(devSecretPath(loaded)), (secret) => fromVariables(mode, loaded, secret))
      : fromVariables(mode, loaded)
  ).pipe(
    Effect.zipWith(AuthEnvironment.ConfigSources, (start, sources) => ({
      ...start,
      warnings: [...start.warnings, ...readOnce(sources)]
    }))
  )

/**
 * Supabase Auth watches its `--config-dir` and reloads the API when a file changes; here the
 * directory is read at start only, which an operator used to the reload needs telling.
 */
export const readOnce = (sources: AuthEnvironment.Sources): ReadonlyArray<string> =>
  Option.match(sources.directory, {
    onNone: () => [],
    onSome: (directory) => [
      `--config-dir ${directory} is read once, at start: a change to its files takes a restart (Supabase Auth reloads them)`
    ]
  })

/** The database part only, for `latchkey auth migrate`. */
export const loadDatabase = Effect.flatMap(AuthEnvironment.load, (loaded) =>
  readFrom("alone", AuthConfig.database, loaded)
)

/**
 * Stands for `SITE_URL` and `API_EXTERNAL_URL` in an operator command's configuration when they
 * are unset: no command the operator runs mails a link or redirects anyone, and a reserved name
 * (RFC 2606) could not pass for a real address if one ever did.
 */
export const operatorPlaceholderUrl = "http://unset.invalid"

/**
 * The configuration the operator commands (`latchkey auth users`, `latchkey auth keys`) run the
 * admin API's use cases with, from variables as read: what they use (AuthConfig.operator), and
 * the service's defaults for everything else, which they do not read.
 */
export const operatorFromVariables = (
  loaded: AuthEnvironment.Variables
): Effect.Effect<AuthConfig.AuthConfig, ConfigError.ConfigError> =>
  Effect.gen(function* () {
    const read = yield* readFrom("alone", AuthConfig.operator, loaded)
    const defaults = yield* Effect.withConfigProvider(
      AuthConfig.server,
      ConfigProvider.fromMap(
        new Map([
          ["AUTHSVC_SITE_URL", Option.getOrElse(read.siteUrl, () => operatorPlaceholderUrl)],
          ["AUTHSVC_API_EXTERNAL_URL", Option.getOrElse(read.externalUrl, () => operatorPlaceholderUrl)]
        ])
      )
    )
    return {
      ...defaults,
      db: read.db,
      jwt: read.jwt,
      passwordPolicy: read.passwordPolicy,
      telemetry: { ...defaults.telemetry, logLevel: read.logLevel }
    }
  })

/**
 * The operator commands' configuration (`operatorFromVariables`), from the command's sources
 * (`.env` unless told otherwise) and the environment.
 */
export const loadOperator = Effect.flatMap(AuthEnvironment.load, operatorFromVariables)
