import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Apple from "../../adapters/idp/providers/apple.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as ConfigValues from "../ConfigValues.js"
import * as TelemetryConfig from "../TelemetryConfig.js"
import * as AuthConfig from "./AuthConfig.js"
import * as AuthConfigValues from "./AuthConfigValues.js"
import type { Variables } from "./AuthEnvironment.js"
import * as GoNumbers from "./GoNumbers.js"
import * as JwtKeys from "./JwtKeys.js"
import * as MfaConfig from "./MfaConfig.js"
import * as SmsConfig from "./SmsConfig.js"

/**
 * What a configuration Supabase Auth starts with, and so this service starts with too, leaves
 * risky or unable to work: one line each, naming the variable as it was written (a `GOTRUE_`
 * name when that was read) and what follows from it. Logged once at start, before anything is
 * served, so that the first sign of such a setting is not a failed sign-in.
 */

/** The shortest HS256 secret that is not a warning: RFC 7518 §3.2's 256 bits, one a character. */
export const shortSecret = 32

const codeLengths = ["AUTHSVC_MAILER_OTP_LENGTH", "AUTHSVC_SMS_OTP_LENGTH", "AUTHSVC_MFA_PHONE_OTP_LENGTH"]

/**
 * The settings read as Go reads an integer (GoNumbers), where a leading 0 makes one octal: those
 * Supabase Auth keeps as `int` or `uint`, and the seconds of those it keeps as a duration (bare
 * seconds are this service's reading; Go's would refuse them).
 */
const integerSettings = [
  ...codeLengths,
  "AUTHSVC_PASSWORD_MIN_LENGTH",
  "AUTHSVC_JWT_EXP",
  "AUTHSVC_DB_MAX_POOL_SIZE",
  "AUTHSVC_DB_CONN_MAX_IDLE_TIME",
  "AUTHSVC_SMTP_PORT",
  "AUTHSVC_SMTP_MAX_FREQUENCY",
  "AUTHSVC_MAILER_OTP_EXP",
  "AUTHSVC_SMS_OTP_EXP",
  "AUTHSVC_SMS_MAX_FREQUENCY",
  "AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL",
  "AUTHSVC_SESSIONS_TIMEBOX",
  "AUTHSVC_SESSIONS_INACTIVITY_TIMEOUT",
  "AUTHSVC_SESSIONS_ALLOW_LOW_AAL",
  "AUTHSVC_CUSTOM_OAUTH_MAX_PROVIDERS",
  "AUTHSVC_REAPER_INTERVAL",
  "AUTHSVC_SECURITY_CAPTCHA_TIMEOUT",
  "AUTHSVC_MFA_FACTOR_EXPIRY_DURATION",
  "AUTHSVC_MFA_MAX_VERIFIED_FACTORS",
  "AUTHSVC_MFA_PHONE_MAX_FREQUENCY",
  "AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION",
  "AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER"
]

export const warnings = (
  config: AuthConfig.AuthConfig,
  variables: Variables,
  sources: ReadonlyMap<string, string> = new Map()
): ReadonlyArray<string> => {
  const written = (name: string) => sources.get(name) ?? name
  const lines: Array<string> = []

  Option.map(config.jwt.secret, (secret) => {
    const length = Redacted.value(secret).length
    if (length < shortSecret) {
      lines.push(
        `${written("AUTHSVC_JWT_SECRET")} has ${length} characters: anyone holding one token can try to guess a key this short offline, then sign tokens of any user; use at least ${shortSecret} random characters`
      )
    }
  })

  const methods = variables.get("AUTHSVC_JWT_VALID_METHODS")
  if (methods !== undefined) {
    const unknown = JwtKeys.methodNames(methods).filter((name) => !JwtKeys.isAlgorithm(name))
    if (unknown.length > 0) {
      lines.push(
        `${written("AUTHSVC_JWT_VALID_METHODS")} names ${unknown.join(", ")}, which this service does not verify: tokens signed so are refused (403 bad_jwt); it verifies ${JwtKeys.algorithms.join(", ")}`
      )
    }
  }
  const signing = JwtKeys.signingKey(config.jwt.keys)
  const valid = Option.getOrUndefined(config.jwt.validMethods)
  if (signing !== undefined && valid !== undefined && !valid.includes(signing.alg)) {
    lines.push(
      `${written("AUTHSVC_JWT_VALID_METHODS")} leaves out ${signing.alg}, the algorithm of the signing key in ${written("AUTHSVC_JWT_KEYS")}: every token this service issues is refused (403 bad_jwt) until the list includes it`
    )
  }

  for (const name of codeLengths) {
    const value = variables.get(name)
    const length = value === undefined ? undefined : GoNumbers.integer(value.trim())?.value
    if (length !== undefined && length !== 0 && !AuthConfigValues.isCodeLength(length)) {
      lines.push(
        `${written(name)} is ${length}: codes have 6 to 10 digits, so they have ${AuthConfigValues.defaultCodeLength}, as Supabase Auth makes them`
      )
    }
  }

  for (const name of integerSettings) {
    const value = variables.get(name)?.trim()
    const read = value === undefined ? undefined : GoNumbers.integer(value)
    // `007` is 7 either way; `010` is where the readings part.
    if (read?.octal === true && read.value !== Number.parseInt((value ?? "").replaceAll("_", ""), 10)) {
      lines.push(
        `${written(name)} is ${value}, read as ${read.value}: a leading 0 makes a number octal, as in Supabase Auth; write ${read.value} if that is meant`
      )
    }
  }

  const driver = variables.get("AUTHSVC_DB_DRIVER")?.trim()
  if (driver !== undefined && driver !== "postgres") {
    lines.push(`${written("AUTHSVC_DB_DRIVER")} is ${driver}, read as postgres; write postgres`)
  }

  Option.map(config.smtp, (smtp) => {
    if (Option.isNone(smtp.adminEmail)) {
      lines.push(
        `${written("AUTHSVC_SMTP_ADMIN_EMAIL")} is unset: mail leaves without a From address, which most mail servers refuse; set it to the sender's address`
      )
    }
  })

  for (const kind of Mail.Kind.literals) {
    const name = AuthConfig.subjectVariable(kind)
    const subject = variables.get(name)
    if (subject !== undefined && !AuthConfig.parsesAsSubject(subject)) {
      lines.push(
        `${written(name)} does not parse as a template (fields, if, else and not are read): the built-in subject is used, as Supabase Auth does with a subject it cannot parse`
      )
    }
  }

  for (const provider of config.externalProviders) {
    Option.map(provider.unusable, (unusable) => {
      lines.push(
        `${written(unusable.variable)} is unset: sign-ins through ${provider.name}'s page answer "Unsupported provider: ${unusable.reason}"${Option.isNone(provider.secret) && provider.clientIds.length > 0 ? " (sign-ins with its ID tokens work)" : ""}`
      )
    })
  }

  for (const provider of config.externalProviders) {
    if (provider.name !== "apple" || Option.isSome(provider.unusable)) continue
    Option.map(provider.secret, (secret) => {
      if (!Apple.isClientSecretFor(provider.clientId, secret)) {
        lines.push(
          `${written("AUTHSVC_EXTERNAL_APPLE_SECRET")} is not a client secret JWT made for ${written("AUTHSVC_EXTERNAL_APPLE_CLIENT_ID")} (ES256, signed with the team's key, its sub the client id): Apple refuses every sign-in through its page (sign-ins with its ID tokens work)`
        )
      }
    })
  }

  Option.map(config.sms.unusable, (why) => {
    lines.push(
      `${written("AUTHSVC_SMS_PROVIDER")} is ${Option.getOrElse(config.sms.provider, () => "")}, but ${why.replace(/AUTHSVC_[A-Z0-9_]+/g, written)}: no text can be sent, and the phone flows answer 422 sms_send_failed "Unable to get SMS provider" (SMS_TEST_OTP numbers still work)`
    )
  })

  for (const [name, known, what] of [
    ["AUTHSVC_TRACING_EXPORTER", TelemetryConfig.tracingExporters, "traces"],
    ["AUTHSVC_METRICS_EXPORTER", TelemetryConfig.metricsExporters, "metrics"]
  ] as const) {
    const value = variables.get(name)
    if (value !== undefined && !known.some((exporter) => exporter === value)) {
      lines.push(
        `${written(name)} is ${value}: ${what} are exported only by ${known.join(" or ")}, so none are, as in Supabase Auth`
      )
    }
  }

  const requestIdHeader = variables.get("AUTHSVC_REQUEST_ID_HEADER")
  if (requestIdHeader !== undefined && Either.isLeft(ConfigValues.parseHeaderName(requestIdHeader))) {
    lines.push(
      `${written("AUTHSVC_REQUEST_ID_HEADER")} is ${JSON.stringify(requestIdHeader)}, which no HTTP header can be named: no request carries it, so every request's id is made here, as in Supabase Auth`
    )
  }

  const prometheusServes =
    ConfigValues.isTrue(variables.get("AUTHSVC_METRICS_ENABLED")) &&
    variables.get("AUTHSVC_METRICS_EXPORTER") === "prometheus"
  const prometheusProblems: ReadonlyArray<readonly [string, (value: string) => boolean]> = [
    [TelemetryConfig.prometheusHostName, (value) => Either.isLeft(ConfigValues.parseListenHost(value))],
    [TelemetryConfig.prometheusPortName, (value) => Either.isLeft(ConfigValues.parsePort(value))]
  ]
  for (const [name, unusable] of prometheusProblems) {
    const value = variables.get(name)
    if (value !== undefined && unusable(value)) {
      lines.push(
        `${written(name)} is ${JSON.stringify(value)}, which no listener can take: ${prometheusServes ? "no Prometheus endpoint is served, as Supabase Auth serves none when its listener cannot start" : "unread while metrics are not exported to Prometheus, and no endpoint would be served"}`
      )
    }
  }

  const ignoredTestOtps = SmsConfig.ignoredTestOtps(variables.get("AUTHSVC_SMS_TEST_OTP") ?? "")
  if (ignoredTestOtps.length > 0) {
    lines.push(
      `${written("AUTHSVC_SMS_TEST_OTP")} holds ${ignoredTestOtps.map((pair) => JSON.stringify(pair)).join(", ")}, which no sign-in can match (a phone number of 2 to 15 digits and a code are expected): ${ignoredTestOtps.length === 1 ? "it is" : "they are"} left out`
    )
  }

  Option.map(config.mfa.relyingParty, (party) => {
    const ceremonies = "every passkey and WebAuthn ceremony fails"
    Option.map(MfaConfig.rpIdProblem(party.id), (problem) => {
      lines.push(`${written("AUTHSVC_WEBAUTHN_RP_ID")} is ${party.id}: ${problem}, or ${ceremonies}`)
    })
    Option.map(MfaConfig.originsProblem(party.origins), (problem) => {
      lines.push(
        `${written("AUTHSVC_WEBAUTHN_RP_ORIGINS")}: ${problem}, and never matches a browser's, so ${ceremonies} from it`
      )
    })
    if (Duration.isZero(config.mfa.webAuthnChallengeExpiry)) {
      lines.push(
        `${written("AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION")} is 0: a challenge expires as it is made, so ${ceremonies}; 5m is Supabase Auth's default`
      )
    }
  })

  return lines
}
