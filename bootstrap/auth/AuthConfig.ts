import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as DatabaseEncryption from "../../adapters/crypto/auth/DatabaseEncryption.js"
import type * as SmtpMailer from "../../adapters/mail/auth/SmtpMailer.js"
import * as TemplateMailComposer from "../../adapters/mail/auth/TemplateMailComposer.js"
import type * as PrivateAddresses from "../../adapters/outbound/PrivateAddresses.js"
import * as DeliverMail from "../../application/auth/DeliverMail.js"
import type { Limit } from "../../application/ports/RateLimiter.js"
import * as FlowState from "../../domain/auth/FlowState.js"
import * as Mail from "../../domain/auth/Mail.js"
import type * as Session from "../../domain/auth/Session.js"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"
import * as ConfigValues from "../ConfigValues.js"
import * as TelemetryConfig from "../TelemetryConfig.js"
import * as AuthConfigValues from "./AuthConfigValues.js"
import * as CaptchaConfig from "./CaptchaConfig.js"
import * as DbEncryptionConfig from "./DbEncryptionConfig.js"
import * as ExternalProviderConfig from "./ExternalConfig.js"
import * as JwtKeys from "./JwtKeys.js"
import * as MfaConfig from "./MfaConfig.js"
import * as SmsConfig from "./SmsConfig.js"

/**
 * The auth service's configuration: the spec's variables with the `AUTHSVC_` prefix (all but
 * `PORT`, `DATABASE_URL`, `LOG_LEVEL` and `OTEL_*`), and the Supabase Auth variables a
 * Supabase deployment relies on beyond the spec (`JWT_KEYS`, `JWT_VALID_METHODS`,
 * `JWT_ISSUER`, two rate limits, manual linking). Read from `AuthEnvironment`'s provider;
 * variables of features still to come are only listed by `AuthVariables.warnings`.
 * docs/configuration.md has the table of names, defaults and meanings.
 */

export interface DatabaseConfig {
  /** `AUTHSVC_DB_DATABASE_URL`, else `DATABASE_URL`; none: the embedded database. */
  readonly url: Option.Option<Redacted.Redacted>
  /**
   * The variable `url` was read from, for the line that says the database cannot be reached
   * (AuthStart names Supabase Auth's `GOTRUE_DB_DATABASE_URL` when it was that).
   */
  readonly urlVariable: string
  /** Where the embedded database keeps its files: `$LATCHKEY_DATA_DIR/auth`. */
  readonly dataDir: string
  /** `DB_NAMESPACE`: the start of every table name; empty for none. */
  readonly namespace: string
  /** `DB_MAX_POOL_SIZE`; none for 0, which leaves the pool at node-postgres's default of 10. */
  readonly maxPoolSize: Option.Option<number>
  /**
   * `DB_CONN_MAX_IDLE_TIME`: how long a connection may sit idle before the pool closes it; none
   * when unset (node-postgres's 10 s). Zero keeps idle connections open, as in Supabase Auth.
   */
  readonly connMaxIdleTime: Option.Option<Duration.Duration>
  /**
   * `DB_PREPARED_STATEMENTS`: the hot statements prepared by name (true); false behind a
   * pooler in transaction mode (PgBouncer, Supavisor on 6543, RDS Proxy). Not in Supabase Auth.
   */
  readonly preparedStatements: boolean
}

export interface ApiConfig {
  /** `API_HOST`: the address to listen on. */
  readonly host: string
  /** `AUTHSVC_API_PORT`, else `PORT`. */
  readonly port: number
  /** `API_EXTERNAL_URL`: where clients reach the service, without a trailing slash. */
  readonly externalUrl: string
}

export interface JwtConfig {
  /**
   * `JWT_SECRET`: the HS256 key, at least 32 characters (RFC 7518 §3.2's 256 bits). Optional,
   * where Supabase Auth requires it even beside `JWT_KEYS`: the spec signs with asymmetric keys
   * by default, which the service can make itself, and keeps HS256 for compatibility.
   */
  readonly secret: Option.Option<Redacted.Redacted>
  /** `JWT_KEYS`: the configured JWKs, exactly one of them signing; empty when unset. */
  readonly keys: ReadonlyArray<JwtKeys.JwtKey>
  /** `JWT_VALID_METHODS`; none: the algorithms of the keys in use, as Supabase Auth derives them. */
  readonly validMethods: Option.Option<ReadonlyArray<JwtKeys.Algorithm>>
  /** `JWT_ISSUER`: the `iss` claim; none leaves it out, as Supabase Auth does when it is unset. */
  readonly issuer: Option.Option<string>
  /** `JWT_ADMIN_ROLES`: roles whose tokens may call the admin endpoints. */
  readonly adminRoles: ReadonlyArray<string>
  /** `JWT_EXP`: access token lifetime in seconds. */
  readonly expSeconds: number
  /** `JWT_AUD`: the audience of users and tokens. */
  readonly aud: string
}

export interface SecurityConfig {
  readonly refreshTokenRotationEnabled: boolean
  /** Only with rotation: how long the previous token may still be exchanged. */
  readonly refreshTokenReuseInterval: Duration.Duration
  readonly updatePasswordRequireReauthentication: boolean
  /** `SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`: a password change names the current one. */
  readonly updatePasswordRequireCurrentPassword: boolean
  readonly manualLinkingEnabled: boolean
  /** `SECURITY_SVC_FORWARDED_FOR_ENABLED`: trust `Svc-Forwarded-For` for the client address. */
  readonly svcForwardedForEnabled: boolean
  /**
   * `SECURITY_SB_FORWARDED_FOR_ENABLED`: Supabase Auth's name of the same switch, for its header
   * `Sb-Forwarded-For`, which the proxies of a Supabase deployment set.
   */
  readonly sbForwardedForEnabled: boolean
}

/** `CUSTOM_OAUTH_*`: the admin API's custom providers. */
export interface CustomOAuthConfig {
  readonly enabled: boolean
  /** 0: no limit. */
  readonly maxProviders: number
  /** The address custom providers call back to, when not `API_EXTERNAL_URL`. */
  readonly externalUrl: Option.Option<string>
}

export interface ExternalConfig {
  /** `EXTERNAL_EMAIL_ENABLED`: sign-up and sign-in with an email address. */
  readonly email: boolean
  /** `EXTERNAL_PHONE_ENABLED`: sign-up and sign-in with a phone number. */
  readonly phone: boolean
  /** `EXTERNAL_ANONYMOUS_USERS_ENABLED`. */
  readonly anonymousUsers: boolean
  /**
   * `EXTERNAL_FLOW_STATE_EXPIRY_DURATION`, as written (`FlowState.lifetime` raises it to 300 s,
   * as Supabase Auth does): how long an authorization code waits for its exchange.
   */
  readonly flowStateExpiry: Duration.Duration
}

/** The mail server (what the SMTP adapter needs); the service sends no mail without `SMTP_HOST`. */
export type SmtpConfig = SmtpMailer.SmtpSettings

export interface MailerConfig {
  /** `MAILER_SUBJECTS_<KIND>` that are set, checked to parse as templates. */
  readonly subjects: Partial<Record<Mail.Kind, string>>
  /** `MAILER_OTP_EXP`: seconds a mailed link or code stays valid. */
  readonly otpExpSeconds: number
  /** `MAILER_OTP_LENGTH`: digits of a mailed code, 6 to 10. */
  readonly otpLength: number
  /** `MAILER_URLPATHS_<KIND>` that are set: where each kind's link goes (`resolveLink`). */
  readonly urlPaths: UrlPaths
  /** `MAILER_SECURE_EMAIL_CHANGE_ENABLED`: both addresses confirm an email change. */
  readonly secureEmailChange: boolean
  /** `SMTP_MAX_FREQUENCY`: least time between two mails of one kind to one user. */
  readonly maxFrequency: Duration.Duration
  /** `MAILER_TEMPLATES_<KIND>` that are set, as written (`resolveTemplate`). */
  readonly templates: Partial<Record<Mail.Kind, string>>
  /** The notifications whose `MAILER_NOTIFICATIONS_<KIND>_ENABLED` is on. */
  readonly notifications: ReadonlySet<Mail.Notification>
  /** `MAILER_LINK_CONFIRMATION_PAGE`: GET /verify shows a button to press instead of using the link. */
  readonly linkConfirmationPage: boolean
}

/** `MAILER_URLPATHS_INVITE`, `_CONFIRMATION`, `_RECOVERY` and `_EMAIL_CHANGE`; none when unset. */
export interface UrlPaths {
  readonly invite: Option.Option<string>
  readonly confirmation: Option.Option<string>
  readonly recovery: Option.Option<string>
  readonly emailChange: Option.Option<string>
}

/**
 * Where a kind's link goes: a `MAILER_URLPATHS_<KIND>` resolved against `API_EXTERNAL_URL` as
 * Supabase Auth resolves it (RFC 3986: a URL stays as it is, `/auth/v1/verify` replaces the
 * external URL's path); unset, `/verify` under `API_EXTERNAL_URL`, path included, which is the
 * link Supabase Auth's default means wherever its external URL has no path.
 */
export const resolveLink = (externalUrl: string, path: Option.Option<string>): string =>
  Option.match(path, {
    onNone: () => `${externalUrl}/verify`,
    onSome: (reference) => new URL(reference, externalUrl).href
  })

/**
 * Where a `MAILER_TEMPLATES_<KIND>` is fetched from: a value starting with `http` is a URL, any
 * other is appended to `SITE_URL`, as Supabase Auth reads it.
 */
export const resolveTemplate = (siteUrl: string, value: string): string =>
  value.startsWith("http") ? value : `${siteUrl}${value}`

/** Supabase Auth's default lifetime of a mailed link or code: a day. */
export const defaultOtpExpSeconds = 86_400

export interface RateLimitConfig {
  /** `RATE_LIMIT_HEADER`: the header a trusted proxy sets to the client address. */
  readonly header: Option.Option<string>
  /** `RATE_LIMIT_TOKEN_REFRESH`: /token requests per client address per 5 minutes. */
  readonly tokenRefresh: Limit
  /** `RATE_LIMIT_ANONYMOUS_USERS`: anonymous sign-ins per client address per hour. */
  readonly anonymousUsers: Limit
  /** `RATE_LIMIT_EMAIL_SENT`: mails with a link or code, all users together, per hour. */
  readonly emailSent: Limit
  /** `RATE_LIMIT_SMS_SENT`: texts with a code, all users together, per hour. */
  readonly smsSent: Limit
  /** `RATE_LIMIT_OTP`: requests that send a message, per client address per 5 minutes. */
  readonly otp: Limit
  /** `RATE_LIMIT_VERIFY`: /verify requests per client address per 5 minutes. */
  readonly verify: Limit
  /**
   * `MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`: factor challenges per client address per minute, and
   * factor verifies, counted apart.
   */
  readonly mfaChallengeAndVerify: Limit
  /** `RATE_LIMIT_PASSKEY`: passkey sign-in options per client address per 5 minutes. */
  readonly passkey: Limit
}

/** Where outbound calls may go besides public addresses. */
export interface OutboundConfig {
  /**
   * `OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` (with the prefix): private addresses at which identity
   * providers, their keys, templates, gateways and captcha providers may be reached, over https
   * or plain http; none by default.
   */
  readonly allowedPrivateAddresses: PrivateAddresses.AllowList
}

export interface AuthConfig {
  /** `SITE_URL`, without a trailing slash. */
  readonly siteUrl: string
  /** `URI_ALLOW_LIST`: the entries as written; `RedirectAllowList.make` reads them. */
  readonly uriAllowList: ReadonlyArray<string>
  readonly disableSignup: boolean
  readonly mailerAutoconfirm: boolean
  readonly smsAutoconfirm: boolean
  /** `PASSWORD_MIN_LENGTH` and `PASSWORD_REQUIRED_CHARACTERS`. */
  readonly passwordPolicy: PasswordPolicy.PasswordPolicy
  readonly external: ExternalConfig
  /** The external providers whose `EXTERNAL_<X>_ENABLED` is on (ExternalConfig). */
  readonly externalProviders: ReadonlyArray<ExternalProviderConfig.ProviderConfig>
  readonly customOAuth: CustomOAuthConfig
  /** None without `SMTP_HOST` (empty counts as unset, as in Supabase Auth): no mail is sent. */
  readonly smtp: Option.Option<SmtpConfig>
  readonly mailer: MailerConfig
  /** Texted codes and the SMS gateway (SmsConfig). */
  readonly sms: SmsConfig.SmsConfig
  /** Factors, WebAuthn and passkeys (MfaConfig). */
  readonly mfa: MfaConfig.MfaConfig
  /** `SECURITY_CAPTCHA_*`; none while captcha protection is off. */
  readonly captcha: Option.Option<CaptchaConfig.CaptchaConfig>
  /** `SECURITY_DB_ENCRYPTION_*`: the keys secrets at rest are sealed and opened with. */
  readonly atRestKeys: DatabaseEncryption.Keys
  readonly rateLimit: RateLimitConfig
  readonly security: SecurityConfig
  /**
   * `SESSIONS_TIMEBOX`, `SESSIONS_INACTIVITY_TIMEOUT`, `SESSIONS_ALLOW_LOW_AAL` (each none when
   * unset, as in Supabase Auth) and `SESSIONS_SINGLE_PER_USER`: how long a session may last
   * (`Session.Limits`).
   */
  readonly sessions: Session.Limits
  readonly outbound: OutboundConfig
  readonly api: ApiConfig
  readonly jwt: JwtConfig
  readonly db: DatabaseConfig
  readonly telemetry: TelemetryConfig.TelemetryConfig
  /**
   * `REAPER_INTERVAL` (ours): how often an instance runs the reaper (`ReapExpired`), an hour by
   * default; the database lock lets one instance at a time run it.
   */
  readonly reaperInterval: Duration.Duration
}

/**
 * `name`, and `fallback` only when `name` is unset, as Supabase Auth's envconfig reads a field
 * with an alternative name: `GOTRUE_DB_DATABASE_URL` wins over `DATABASE_URL`, and
 * `GOTRUE_API_PORT` over `PORT`. A wrong value under `name` is reported, never skipped.
 */
const preferring = <A>(name: Config.Config<A>, fallback: Config.Config<A>): Config.Config<A> =>
  Config.orElseIf(name, { if: ConfigError.isMissingDataOnly, orElse: () => fallback })

/** A Postgres URL with the name it was read under. */
const namedUrl = (name: string) =>
  Config.map(ConfigValues.postgresUrl(name), (url) => ({ url, variable: name }))

const databaseFields = Config.all({
  driver: AuthConfigValues.databaseDriver("AUTHSVC_DB_DRIVER"),
  url: Config.option(preferring(namedUrl("AUTHSVC_DB_DATABASE_URL"), namedUrl("DATABASE_URL"))),
  dataDir: ConfigValues.dataDir("auth"),
  namespace: AuthConfigValues.tablePrefix("AUTHSVC_DB_NAMESPACE"),
  // Supabase Auth hands it to database/sql, where 0 or less means no limit of its own.
  maxPoolSize: AuthConfigValues.integerNamed("AUTHSVC_DB_MAX_POOL_SIZE", 0),
  connMaxIdleTime: AuthConfigValues.optionalSecondsOrDuration("AUTHSVC_DB_CONN_MAX_IDLE_TIME"),
  preparedStatements: ConfigValues.bool("AUTHSVC_DB_PREPARED_STATEMENTS", true)
}).pipe(
  Config.map(
    (fields): DatabaseConfig => ({
      url: Option.map(fields.url, (named) => named.url),
      urlVariable: Option.match(fields.url, {
        onNone: () => "AUTHSVC_DB_DATABASE_URL",
        onSome: (named) => named.variable
      }),
      dataDir: fields.dataDir,
      namespace: fields.namespace,
      maxPoolSize: fields.maxPoolSize <= 0 ? Option.none() : Option.some(fields.maxPoolSize),
      connMaxIdleTime: fields.connMaxIdleTime,
      preparedStatements: fields.preparedStatements
    })
  )
)

/** What `latchkey auth migrate` and the operator commands need: only the database. */
export const database: Config.Config<{ readonly db: DatabaseConfig; readonly logLevel: LogLevel.LogLevel }> =
  Config.all({ db: databaseFields, logLevel: ConfigValues.logLevel })

/** Supabase Auth's roles for admin tokens when `JWT_ADMIN_ROLES` is unset. */
export const defaultAdminRoles: ReadonlyArray<string> = ["service_role", "supabase_admin"]

export const defaultExpSeconds = 3600

const jwtFields = Config.all({
  // Any length, as Supabase Auth takes it; ConfigWarnings warns of a short one.
  secret: Config.option(Config.redacted("AUTHSVC_JWT_SECRET")),
  keys: ConfigValues.check(
    "AUTHSVC_JWT_KEYS",
    Config.string("AUTHSVC_JWT_KEYS").pipe(Config.withDefault("[]")),
    JwtKeys.parse
  ),
  validMethods: Config.option(
    ConfigValues.check(
      "AUTHSVC_JWT_VALID_METHODS",
      Config.string("AUTHSVC_JWT_VALID_METHODS"),
      JwtKeys.parseMethods
    )
  ),
  issuer: Config.option(Config.string("AUTHSVC_JWT_ISSUER")),
  adminRoles: ConfigValues.list("AUTHSVC_JWT_ADMIN_ROLES"),
  exp: AuthConfigValues.wholeNumberNamed("AUTHSVC_JWT_EXP", defaultExpSeconds),
  aud: Config.string("AUTHSVC_JWT_AUD").pipe(Config.withDefault("authenticated"))
}).pipe(
  Config.map(
    (fields): JwtConfig => ({
      secret: fields.secret,
      keys: fields.keys,
      validMethods: fields.validMethods,
      issuer: fields.issuer,
      adminRoles: fields.adminRoles.length === 0 ? defaultAdminRoles : fields.adminRoles,
      // 0 is Supabase Auth's "unset", which it replaces by the default too.
      expSeconds: fields.exp === 0 ? defaultExpSeconds : fields.exp,
      aud: fields.aud
    })
  )
)

/** The most connections `SMTP_MAX_CONNECTIONS` may ask of a mail server. */
const maxSmtpConnections = 100

/** Supabase Auth's `SMTP_PORT` when it is unset. */
export const defaultSmtpPort = 587

/**
 * `SMTP_HOST` with what goes with it. Supabase Auth starts without a port (587) or a From
 * address (every mail then fails), so this service does too; ConfigWarnings names the latter.
 */
const smtpFields = Config.all({
  host: Config.option(Config.string("AUTHSVC_SMTP_HOST")),
  port: Config.option(AuthConfigValues.portNumber("AUTHSVC_SMTP_PORT")),
  user: Config.option(Config.string("AUTHSVC_SMTP_USER")),
  pass: Config.option(Config.redacted("AUTHSVC_SMTP_PASS")),
  // As written: Supabase Auth puts it in the From header as it is when no sender name is set,
  // so `Admin <admin@example.com>` works there, and here.
  adminEmail: Config.option(Config.string("AUTHSVC_SMTP_ADMIN_EMAIL")).pipe(
    Config.map(Option.filter((value) => value.trim() !== ""))
  ),
  senderName: Config.option(Config.string("AUTHSVC_SMTP_SENDER_NAME")),
  // Not a Supabase Auth variable: how many messages an instance sends at once (one connection
  // each), so that a slow mail server does not cap delivery at 5 in flight.
  maxConnections: ConfigValues.check(
    "AUTHSVC_SMTP_MAX_CONNECTIONS",
    Config.string("AUTHSVC_SMTP_MAX_CONNECTIONS").pipe(
      Config.withDefault(String(DeliverMail.concurrentAttempts))
    ),
    (value) => {
      const n = Number(value.trim())
      return /^\s*[0-9]+\s*$/.test(value) && n >= 1 && n <= maxSmtpConnections
        ? Either.right(n)
        : Either.left(`expected a whole number from 1 to ${maxSmtpConnections}`)
    }
  )
}).pipe(
  Config.mapOrFail((smtp): Either.Either<Option.Option<SmtpConfig>, ConfigError.ConfigError> => {
    const host = Option.filter(smtp.host, (value) => value.trim() !== "")
    if (Option.isNone(host)) return Either.right(Option.none())
    return Either.right(
      Option.some({
        host: host.value.trim(),
        // Supabase Auth's port when none is given: mail submission (RFC 6409).
        port: Option.getOrElse(smtp.port, () => defaultSmtpPort),
        user: Option.filter(smtp.user, (value) => value !== ""),
        pass: smtp.pass,
        adminEmail: Option.map(smtp.adminEmail, (value) => value.trim()),
        senderName: Option.filter(smtp.senderName, (value) => value.trim() !== ""),
        maxConnections: smtp.maxConnections
      })
    )
  })
)

/**
 * Each `MAILER_SUBJECTS_<KIND>` that is set and parses as a template this service renders. One
 * that does not is left for the built-in subject, as Supabase Auth does with a subject it cannot
 * parse; ConfigWarnings names it.
 */
/** The variable of a kind's subject. */
export const subjectVariable = (kind: Mail.Kind) => `AUTHSVC_MAILER_SUBJECTS_${kind.toUpperCase()}`

/** Whether `subject` is a template this service renders. */
export const parsesAsSubject = (subject: string): boolean =>
  Either.isRight(TemplateMailComposer.parseSubject(subject))

const subjectsField = Config.all(
  Mail.Kind.literals.map((kind) =>
    Config.option(Config.string(subjectVariable(kind))).pipe(
      Config.map((subject) => [kind, Option.filter(subject, parsesAsSubject)] as const)
    )
  )
).pipe(
  Config.map((entries) => {
    const subjects: Partial<Record<Mail.Kind, string>> = {}
    for (const [kind, subject] of entries) if (Option.isSome(subject)) subjects[kind] = subject.value
    return subjects
  })
)

/** The variable of the private addresses outbound calls may reach. */
export const allowedPrivateAddressesVariable = "AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES"

/**
 * Each `MAILER_TEMPLATES_<KIND>` that is set: an http or https URL, or, as Supabase Auth reads
 * one that does not start with `http`, a path appended to `SITE_URL` (`resolveTemplate`). The
 * mail worker fetches it through the outbound guard, which decides at each fetch where it may go
 * (plain http only to an allowed private address); a fetch it refuses leaves the built-in body.
 */
const templatesField = Config.all(
  Mail.Kind.literals.map((kind) => {
    const name = `AUTHSVC_MAILER_TEMPLATES_${kind.toUpperCase()}`
    return Config.option(Config.string(name)).pipe(
      Config.map(
        (url) =>
          [
            kind,
            Option.filter(
              Option.map(url, (value) => value.trim()),
              (value) => value !== ""
            )
          ] as const
      )
    )
  })
).pipe(
  Config.map((entries) => {
    const urls: Partial<Record<Mail.Kind, string>> = {}
    for (const [kind, url] of entries) if (Option.isSome(url)) urls[kind] = url.value
    return urls
  })
)

/**
 * A `MAILER_URLPATHS_<KIND>`: a path or a whole URL, as Supabase Auth takes it (the Supabase CLI
 * writes `http://127.0.0.1:54321/auth/v1/verify`); `resolveLink` makes the link of it. Refused
 * only when it is no URL reference at all.
 */
const urlPath = (name: string) =>
  Config.option(
    ConfigValues.check(name, Config.string(name), (value) =>
      URL.canParse(value.trim(), "http://reference.invalid/")
        ? Either.right(value.trim())
        : Either.left("expected a path such as /verify, or a URL")
    )
  )

/** Each `MAILER_NOTIFICATIONS_<KIND>_ENABLED`, off unless set. */
const notificationsField = Config.all(
  Mail.notifications.map((kind) =>
    ConfigValues.bool(
      `AUTHSVC_MAILER_NOTIFICATIONS_${kind.replace(/_notification$/, "").toUpperCase()}_ENABLED`,
      false
    ).pipe(Config.map((enabled) => (enabled ? [kind] : [])))
  )
).pipe(Config.map((enabled): ReadonlySet<Mail.Notification> => new Set(enabled.flat())))

const mailerFields = Config.all({
  subjects: subjectsField,
  templates: templatesField,
  notifications: notificationsField,
  secureEmailChange: ConfigValues.bool("AUTHSVC_MAILER_SECURE_EMAIL_CHANGE_ENABLED", true),
  linkConfirmationPage: ConfigValues.bool("AUTHSVC_MAILER_LINK_CONFIRMATION_PAGE", false),
  // The spec's 900 s; a bare number is seconds, a Go duration (`1m30s`) also reads.
  maxFrequency: AuthConfigValues.secondsOrDuration("AUTHSVC_SMTP_MAX_FREQUENCY", Duration.seconds(900)),
  otpExp: AuthConfigValues.wholeNumberNamed("AUTHSVC_MAILER_OTP_EXP", defaultOtpExpSeconds),
  otpLength: AuthConfigValues.codeLength("AUTHSVC_MAILER_OTP_LENGTH"),
  urlPaths: Config.all({
    invite: urlPath("AUTHSVC_MAILER_URLPATHS_INVITE"),
    confirmation: urlPath("AUTHSVC_MAILER_URLPATHS_CONFIRMATION"),
    recovery: urlPath("AUTHSVC_MAILER_URLPATHS_RECOVERY"),
    emailChange: urlPath("AUTHSVC_MAILER_URLPATHS_EMAIL_CHANGE")
  })
}).pipe(
  Config.map(
    (fields): MailerConfig => ({
      subjects: fields.subjects,
      // 0 is Supabase Auth's "unset", which it replaces by the default too.
      otpExpSeconds: fields.otpExp === 0 ? defaultOtpExpSeconds : fields.otpExp,
      otpLength: fields.otpLength,
      urlPaths: fields.urlPaths,
      secureEmailChange: fields.secureEmailChange,
      maxFrequency: fields.maxFrequency,
      templates: fields.templates,
      notifications: fields.notifications,
      linkConfirmationPage: fields.linkConfirmationPage
    })
  )
)

const passwordPolicyField = Config.all({
  minLength: AuthConfigValues.integerNamed("AUTHSVC_PASSWORD_MIN_LENGTH", PasswordPolicy.defaultMinLength),
  requiredCharacters: Config.string("AUTHSVC_PASSWORD_REQUIRED_CHARACTERS").pipe(Config.withDefault(""))
}).pipe(Config.map(PasswordPolicy.make))

const siteUrlField = AuthConfigValues.siteUrl("AUTHSVC_SITE_URL")
const externalUrlField = AuthConfigValues.httpUrl("AUTHSVC_API_EXTERNAL_URL")

/** What the operator commands (`latchkey auth users`, `latchkey auth keys`) read of the variables. */
export interface OperatorConfig {
  readonly db: DatabaseConfig
  readonly logLevel: LogLevel.LogLevel
  /** The signing keys, the algorithms allowed, the audience of users. */
  readonly jwt: JwtConfig
  /** A user created from the command line gets a password the policy allows. */
  readonly passwordPolicy: PasswordPolicy.PasswordPolicy
  /** `SITE_URL` and `API_EXTERNAL_URL`, read when set (none of the commands needs them). */
  readonly siteUrl: Option.Option<string>
  readonly externalUrl: Option.Option<string>
}

/**
 * The operator commands' variables: the database, the JWT settings and the password policy, and
 * the two URLs only when they are set. A variable of the serving instances that a command does
 * not use (an SMS gateway, a provider, a port) is not read, so it can neither stop nor slow it.
 */
export const operator: Config.Config<OperatorConfig> = Config.all({
  db: databaseFields,
  logLevel: ConfigValues.logLevel,
  jwt: jwtFields,
  passwordPolicy: passwordPolicyField,
  siteUrl: Config.option(siteUrlField),
  externalUrl: Config.option(externalUrlField)
})

const fields = Config.all({
  siteUrl: siteUrlField,
  uriAllowList: ConfigValues.list("AUTHSVC_URI_ALLOW_LIST"),
  disableSignup: ConfigValues.bool("AUTHSVC_DISABLE_SIGNUP", false),
  mailerAutoconfirm: ConfigValues.bool("AUTHSVC_MAILER_AUTOCONFIRM", false),
  smsAutoconfirm: ConfigValues.bool("AUTHSVC_SMS_AUTOCONFIRM", false),
  passwordPolicy: passwordPolicyField,
  external: Config.all({
    email: ConfigValues.bool("AUTHSVC_EXTERNAL_EMAIL_ENABLED", true),
    phone: ConfigValues.bool("AUTHSVC_EXTERNAL_PHONE_ENABLED", false),
    anonymousUsers: ConfigValues.bool("AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED", false),
    flowStateExpiry: AuthConfigValues.secondsOrDuration(
      "AUTHSVC_EXTERNAL_FLOW_STATE_EXPIRY_DURATION",
      FlowState.minimumLifetime
    )
  }),
  externalProviders: ExternalProviderConfig.providers,
  customOAuth: Config.all({
    enabled: ConfigValues.bool("AUTHSVC_CUSTOM_OAUTH_ENABLED", true),
    maxProviders: AuthConfigValues.wholeNumberNamed("AUTHSVC_CUSTOM_OAUTH_MAX_PROVIDERS", 0),
    externalUrl: Config.option(AuthConfigValues.httpUrl("AUTHSVC_CUSTOM_OAUTH_EXTERNAL_URL"))
  }),
  smtp: smtpFields,
  mailer: mailerFields,
  sms: SmsConfig.sms,
  mfa: MfaConfig.mfa,
  captcha: CaptchaConfig.captcha,
  atRestKeys: DbEncryptionConfig.keys,
  rateLimit: Config.all({
    header: Config.option(ConfigValues.headerName("AUTHSVC_RATE_LIMIT_HEADER")),
    tokenRefresh: AuthConfigValues.requestsPer(
      "AUTHSVC_RATE_LIMIT_TOKEN_REFRESH",
      150,
      Duration.minutes(5),
      "5 minutes"
    ),
    anonymousUsers: AuthConfigValues.requestsPer(
      "AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS",
      30,
      Duration.hours(1),
      "hour"
    ),
    emailSent: AuthConfigValues.eventsPer("AUTHSVC_RATE_LIMIT_EMAIL_SENT", 30),
    smsSent: AuthConfigValues.eventsPer("AUTHSVC_RATE_LIMIT_SMS_SENT", 30),
    otp: AuthConfigValues.requestsPer("AUTHSVC_RATE_LIMIT_OTP", 30, Duration.minutes(5), "5 minutes"),
    verify: AuthConfigValues.requestsPer("AUTHSVC_RATE_LIMIT_VERIFY", 30, Duration.minutes(5), "5 minutes"),
    mfaChallengeAndVerify: AuthConfigValues.requestsPer(
      "AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY",
      15,
      Duration.minutes(1),
      "minute"
    ),
    passkey: AuthConfigValues.requestsPer("AUTHSVC_RATE_LIMIT_PASSKEY", 30, Duration.minutes(5), "5 minutes")
  }),
  security: Config.all({
    refreshTokenRotationEnabled: ConfigValues.bool("AUTHSVC_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", true),
    // 10 s as in Supabase projects (the CLI's and the platform's default); the bare Supabase Auth
    // binary defaults to 0, which turns every concurrent refresh of two tabs into a reuse attack.
    refreshTokenReuseInterval: AuthConfigValues.secondsOrDuration(
      "AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL",
      Duration.seconds(10)
    ),
    updatePasswordRequireReauthentication: ConfigValues.bool(
      "AUTHSVC_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION",
      false
    ),
    updatePasswordRequireCurrentPassword: ConfigValues.bool(
      "AUTHSVC_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD",
      false
    ),
    manualLinkingEnabled: ConfigValues.bool("AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED", false),
    svcForwardedForEnabled: ConfigValues.bool("AUTHSVC_SECURITY_SVC_FORWARDED_FOR_ENABLED", false),
    sbForwardedForEnabled: ConfigValues.bool("AUTHSVC_SECURITY_SB_FORWARDED_FOR_ENABLED", false)
  }),
  sessions: Config.all({
    timebox: AuthConfigValues.optionalPositiveDuration("AUTHSVC_SESSIONS_TIMEBOX"),
    inactivityTimeout: AuthConfigValues.optionalPositiveDuration("AUTHSVC_SESSIONS_INACTIVITY_TIMEOUT"),
    allowLowAal: AuthConfigValues.optionalPositiveDuration("AUTHSVC_SESSIONS_ALLOW_LOW_AAL"),
    singlePerUser: ConfigValues.bool("AUTHSVC_SESSIONS_SINGLE_PER_USER", false)
  }),
  outbound: Config.all({
    allowedPrivateAddresses: ConfigValues.privateAddresses(allowedPrivateAddressesVariable)
  }),
  reaperInterval: AuthConfigValues.positiveDuration("AUTHSVC_REAPER_INTERVAL", Duration.hours(1)),
  api: Config.all({
    host: ConfigValues.listenHost("AUTHSVC_API_HOST", "0.0.0.0"),
    port: preferring(ConfigValues.port("AUTHSVC_API_PORT"), ConfigValues.portNamed("PORT", 8081)),
    externalUrl: externalUrlField
  }),
  jwt: jwtFields,
  db: databaseFields,
  telemetry: TelemetryConfig.read("AUTHSVC_")
})

/** Everything `latchkey auth serve` needs, validated together. */
export const server: Config.Config<AuthConfig> = fields
