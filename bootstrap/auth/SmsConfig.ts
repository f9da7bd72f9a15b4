import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as GoTemplate from "../../adapters/mail/auth/GoTemplate.js"
import * as SmsGateways from "../../adapters/sms/auth/SmsGateways.js"
import { type Phone, parsePhone } from "../../domain/User.js"
import * as ConfigValues from "../ConfigValues.js"
import * as AuthConfigValues from "./AuthConfigValues.js"

/**
 * Texted codes: `SMS_PROVIDER`, the text, the codes' length and lifetime, and Supabase Auth's
 * fixed test codes, all with the `AUTHSVC_` prefix. Each gateway names and reads its own
 * credentials beside its adapter (`adapters/sms/auth/<Gateway>.ts`); this picks the one
 * `SMS_PROVIDER` names.
 */

export interface SmsConfig {
  /** `SMS_PROVIDER` as written (what /settings reports); none when unset. */
  readonly provider: Option.Option<string>
  /**
   * The gateway `SMS_PROVIDER` names, with its credentials; none when unset, or when it cannot
   * send (`unusable`): no text is sent then, and the phone flows say "Unable to get SMS provider".
   */
  readonly gateway: Option.Option<SmsGateways.Gateway>
  /**
   * Why a set `SMS_PROVIDER` cannot send: a gateway this service does not speak, or the
   * variables of its credentials that are empty. Supabase Auth starts so and fails each text.
   */
  readonly unusable: Option.Option<string>
  /** `SMS_TEMPLATE`, as written (Go template syntax, `{{ .Code }}`), checked to parse. */
  readonly template: string
  /** `SMS_OTP_EXP`: seconds a texted code stays valid. */
  readonly otpExpSeconds: number
  /** `SMS_OTP_LENGTH`: digits of a texted code, 6 to 10. */
  readonly otpLength: number
  /** `SMS_MAX_FREQUENCY`: least time between two texts to one number. */
  readonly maxFrequency: Duration.Duration
  /**
   * `SMS_TEST_OTP`: numbers that get a fixed code instead of a text, keyed as phones are stored
   * (`User.Phone`). Supabase Auth uses them while `testOtpValidUntil` has not passed.
   */
  readonly testOtp: ReadonlyMap<Phone, string>
  /** `SMS_TEST_OTP_VALID_UNTIL`; none: the test codes never expire. */
  readonly testOtpValidUntil: Option.Option<Date>
}

/** Supabase Auth's text when `SMS_TEMPLATE` is unset. */
export const defaultTemplate = "Your code is {{ .Code }}"

/** Supabase Auth's lifetime of a texted code: a minute. */
export const defaultOtpExpSeconds = 60

/** Supabase Auth's least time between two texts to one number. */
export const defaultMaxFrequency = Duration.minutes(1)

const providerName = "AUTHSVC_SMS_PROVIDER"

const isProvider = (value: string): value is SmsGateways.Provider =>
  SmsGateways.providers.some((provider) => provider === value)

/** `SMS_PROVIDER`; none when unset or blank, as Supabase Auth reads an empty one. */
const providerField = Config.option(Config.string(providerName)).pipe(
  Config.map((value) =>
    Option.filter(
      Option.map(value, (v) => v.trim()),
      (v) => v !== ""
    )
  )
)

interface GatewayChoice {
  readonly provider: Option.Option<string>
  readonly gateway: Option.Option<SmsGateways.Gateway>
  readonly unusable: Option.Option<string>
}

/**
 * `SMS_PROVIDER`, and the credentials of the gateway it names. Supabase Auth starts with a
 * gateway it does not know or without its credentials, and fails each text; so does this
 * service, saying why once at start (ConfigWarnings).
 */
const gatewayField = Config.all({ provider: providerField, configured: SmsGateways.config }).pipe(
  Config.map(({ provider, configured }): GatewayChoice => {
    if (Option.isNone(provider)) return { provider, gateway: Option.none(), unusable: Option.none() }
    const chosen = provider.value
    if (!isProvider(chosen)) {
      return {
        provider,
        gateway: Option.none(),
        unusable: Option.some(`it is none of ${SmsGateways.providers.join(", ")}`)
      }
    }
    return Either.match(SmsGateways.gatewayOf(chosen, configured), {
      onLeft: (missing) => ({
        provider,
        gateway: Option.none(),
        unusable: Option.some(`${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} unset`)
      }),
      onRight: (gateway) => ({ provider, gateway: Option.some(gateway), unusable: Option.none() })
    })
  })
)

const testOtpExpected = "expected phone:code pairs separated by commas, e.g. 15555550100:123456"

/**
 * `SMS_TEST_OTP` as Supabase Auth reads a map (`phone:code,phone:code`): an item that is not one
 * pair is refused, as there. Its numbers, written with or without `+` (Supabase's `config.toml`
 * writes `4152127777`), are read as clients' numbers are and kept as phones are stored. A pair
 * whose number is no number or whose code is empty (Supabase Auth's own example.env writes
 * `<phone-1>:<otp-1>`) could never match a user: Supabase Auth keeps it silently, this service
 * starts without it and says so (`ignoredTestOtps`, a warning at start).
 */
const readTestOtp = (
  value: string
): Either.Either<
  { readonly codes: ReadonlyMap<Phone, string>; readonly ignored: ReadonlyArray<string> },
  string
> => {
  const codes = new Map<Phone, string>()
  const ignored: Array<string> = []
  if (value.trim() === "") return Either.right({ codes, ignored })
  for (const pair of value.split(",")) {
    const parts = pair.split(":")
    if (parts.length !== 2) return Either.left(testOtpExpected)
    const phone = parts[0]?.trim() ?? ""
    const code = parts[1]?.trim() ?? ""
    const normalized = parsePhone(phone)
    if (code === "" || Either.isLeft(normalized)) ignored.push(pair.trim())
    else codes.set(normalized.right, code)
  }
  return Either.right({ codes, ignored })
}

export const parseTestOtp = (value: string): Either.Either<ReadonlyMap<Phone, string>, string> =>
  Either.map(readTestOtp(value), ({ codes }) => codes)

/** The pairs of an `SMS_TEST_OTP` the service starts without: no number, or no code. */
export const ignoredTestOtps = (value: string): ReadonlyArray<string> =>
  Either.match(readTestOtp(value), { onLeft: () => [], onRight: ({ ignored }) => ignored })

// Go's time.Time reads text as RFC 3339: a date, a time with optional fraction, and a zone.
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

/** Whether the fields exist: JavaScript's Date rolls 31 February over into March, Go refuses it. */
const inRange = (fields: ReadonlyArray<string | undefined>): boolean => {
  const [year, month, day, hour, minute, second, zoneHour, zoneMinute] = fields.map(Number)
  if (year === undefined || month === undefined || day === undefined) return false
  const date = new Date(Date.UTC(year, month - 1, day))
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    (hour ?? 0) <= 23 &&
    (minute ?? 0) <= 59 &&
    (second ?? 0) <= 59 &&
    (fields[6] === undefined || ((zoneHour ?? 0) <= 23 && (zoneMinute ?? 0) <= 59))
  )
}

export const parseTime = (value: string): Either.Either<Date, string> => {
  const trimmed = value.trim()
  const match = rfc3339.exec(trimmed)
  return match !== null && inRange(match.slice(1))
    ? Either.right(new Date(trimmed))
    : Either.left("expected an RFC 3339 time, e.g. 2030-01-31T12:00:00Z")
}

/** An `SMS_TEMPLATE` checked at start: the template this service can render, or why not. */
export const parseTemplate = (source: string): Either.Either<string, string> =>
  Either.mapBoth(GoTemplate.parse(source), {
    onLeft: (error) => `does not parse as a template: ${error}`,
    onRight: () => source
  })

/** Everything about texted codes, validated together; read beside `AuthConfig.server`. */
export const sms: Config.Config<SmsConfig> = Config.all({
  gateway: gatewayField,
  template: Config.string("AUTHSVC_SMS_TEMPLATE").pipe(Config.withDefault(defaultTemplate)),
  otpExp: AuthConfigValues.wholeNumberNamed("AUTHSVC_SMS_OTP_EXP", defaultOtpExpSeconds),
  otpLength: AuthConfigValues.codeLength("AUTHSVC_SMS_OTP_LENGTH"),
  maxFrequency: AuthConfigValues.secondsOrDuration("AUTHSVC_SMS_MAX_FREQUENCY", defaultMaxFrequency),
  testOtp: ConfigValues.check(
    "AUTHSVC_SMS_TEST_OTP",
    Config.string("AUTHSVC_SMS_TEST_OTP").pipe(Config.withDefault("")),
    parseTestOtp
  ),
  testOtpValidUntil: Config.option(
    ConfigValues.check(
      "AUTHSVC_SMS_TEST_OTP_VALID_UNTIL",
      Config.string("AUTHSVC_SMS_TEST_OTP_VALID_UNTIL"),
      parseTime
    )
  )
}).pipe(
  Config.mapOrFail((fields): Either.Either<SmsConfig, ConfigError.ConfigError> => {
    // Checked when a gateway is named, as Supabase Auth checks it; without one no text is ever
    // rendered, and Supabase Auth never reads it.
    if (Option.isSome(fields.gateway.provider)) {
      const parsed = parseTemplate(fields.template)
      if (Either.isLeft(parsed)) return Either.left(ConfigValues.invalid("AUTHSVC_SMS_TEMPLATE", parsed.left))
    }
    return Either.right({
      provider: fields.gateway.provider,
      gateway: fields.gateway.gateway,
      unusable: fields.gateway.unusable,
      template: fields.template,
      // 0 is Supabase Auth's "unset", which it replaces by the default too.
      otpExpSeconds: fields.otpExp === 0 ? defaultOtpExpSeconds : fields.otpExp,
      otpLength: fields.otpLength,
      maxFrequency: Duration.isZero(fields.maxFrequency) ? defaultMaxFrequency : fields.maxFrequency,
      testOtp: fields.testOtp,
      testOtpValidUntil: fields.testOtpValidUntil
    })
  })
)
