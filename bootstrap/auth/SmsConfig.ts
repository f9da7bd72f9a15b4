import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as GoTemplate from "../../adapters/mail/auth/GoTemplate.js"
import * as SmsGateways from "../../adapters/sms/auth/SmsGateways.js"
import { type Phone, parsePhone } from "../../domain/User.js"
import * as ConfigValues from "../ConfigValues.js"
import * as AuthConfigValues from "./AuthConfigValues.js"

/**
 * Texted codes: `SMS_PROVIDER` and its gateway's credentials, the text, the codes' length and
 * lifetime, and Supabase Auth's fixed test codes, all with the `AUTHSVC_` prefix.
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

/** A setting that is none when unset or only spaces. */
const text = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map((value) =>
      Option.filter(
        Option.map(value, (v) => v.trim()),
        (v) => v !== ""
      )
    )
  )

/** A credential, kept redacted; none when unset or only spaces. */
const secret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

const credentialFields = Config.all({
  twilioAccountSid: text("AUTHSVC_SMS_TWILIO_ACCOUNT_SID"),
  twilioAuthToken: secret("AUTHSVC_SMS_TWILIO_AUTH_TOKEN"),
  twilioMessageServiceSid: text("AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID"),
  twilioContentSid: text("AUTHSVC_SMS_TWILIO_CONTENT_SID"),
  twilioVerifyAccountSid: text("AUTHSVC_SMS_TWILIO_VERIFY_ACCOUNT_SID"),
  twilioVerifyAuthToken: secret("AUTHSVC_SMS_TWILIO_VERIFY_AUTH_TOKEN"),
  twilioVerifyServiceSid: text("AUTHSVC_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID"),
  messageBirdAccessKey: secret("AUTHSVC_SMS_MESSAGEBIRD_ACCESS_KEY"),
  messageBirdOriginator: text("AUTHSVC_SMS_MESSAGEBIRD_ORIGINATOR"),
  textlocalApiKey: secret("AUTHSVC_SMS_TEXTLOCAL_API_KEY"),
  textlocalSender: text("AUTHSVC_SMS_TEXTLOCAL_SENDER"),
  vonageApiKey: text("AUTHSVC_SMS_VONAGE_API_KEY"),
  vonageApiSecret: secret("AUTHSVC_SMS_VONAGE_API_SECRET"),
  vonageFrom: text("AUTHSVC_SMS_VONAGE_FROM")
})

type Credentials = Config.Config.Success<typeof credentialFields>

/** The chosen gateway's `variable`, or its name when it is empty. */
const need = <A>(variable: string, value: Option.Option<A>): Either.Either<A, string> =>
  Either.fromOption(value, () => variable)

/** The variables of `fields` that are empty, all of them, so that one start names them all. */
const missingOf = (fields: ReadonlyArray<Either.Either<unknown, string>>): ReadonlyArray<string> =>
  fields.flatMap((field) => (Either.isLeft(field) ? [field.left] : []))

const gatewayOf = (
  provider: SmsGateways.Provider,
  c: Credentials
): Either.Either<SmsGateways.Gateway, ReadonlyArray<string>> => {
  switch (provider) {
    case "twilio": {
      const accountSid = need("AUTHSVC_SMS_TWILIO_ACCOUNT_SID", c.twilioAccountSid)
      const authToken = need("AUTHSVC_SMS_TWILIO_AUTH_TOKEN", c.twilioAuthToken)
      const messageServiceSid = need("AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID", c.twilioMessageServiceSid)
      return Either.mapBoth(Either.all({ accountSid, authToken, messageServiceSid }), {
        onLeft: () => missingOf([accountSid, authToken, messageServiceSid]),
        onRight: (settings) => ({ provider, settings: { ...settings, contentSid: c.twilioContentSid } })
      })
    }
    case "twilio_verify": {
      const accountSid = need("AUTHSVC_SMS_TWILIO_VERIFY_ACCOUNT_SID", c.twilioVerifyAccountSid)
      const authToken = need("AUTHSVC_SMS_TWILIO_VERIFY_AUTH_TOKEN", c.twilioVerifyAuthToken)
      const serviceSid = need("AUTHSVC_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID", c.twilioVerifyServiceSid)
      return Either.mapBoth(Either.all({ accountSid, authToken, serviceSid }), {
        onLeft: () => missingOf([accountSid, authToken, serviceSid]),
        onRight: (settings) => ({ provider, settings })
      })
    }
    case "messagebird": {
      const accessKey = need("AUTHSVC_SMS_MESSAGEBIRD_ACCESS_KEY", c.messageBirdAccessKey)
      const originator = need("AUTHSVC_SMS_MESSAGEBIRD_ORIGINATOR", c.messageBirdOriginator)
      return Either.mapBoth(Either.all({ accessKey, originator }), {
        onLeft: () => missingOf([accessKey, originator]),
        onRight: (settings) => ({ provider, settings })
      })
    }
    case "textlocal": {
      const apiKey = need("AUTHSVC_SMS_TEXTLOCAL_API_KEY", c.textlocalApiKey)
      const sender = need("AUTHSVC_SMS_TEXTLOCAL_SENDER", c.textlocalSender)
      return Either.mapBoth(Either.all({ apiKey, sender }), {
        onLeft: () => missingOf([apiKey, sender]),
        onRight: (settings) => ({ provider, settings })
      })
    }
    case "vonage": {
      const apiKey = need("AUTHSVC_SMS_VONAGE_API_KEY", c.vonageApiKey)
      const apiSecret = need("AUTHSVC_SMS_VONAGE_API_SECRET", c.vonageApiSecret)
      const from = need("AUTHSVC_SMS_VONAGE_FROM", c.vonageFrom)
      return Either.mapBoth(Either.all({ apiKey, apiSecret, from }), {
        onLeft: () => missingOf([apiKey, apiSecret, from]),
        onRight: (settings) => ({ provider, settings })
      })
    }
  }
}

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
const gatewayField = Config.all({ provider: providerField, credentials: credentialFields }).pipe(
  Config.map(({ provider, credentials }): GatewayChoice => {
    if (Option.isNone(provider)) return { provider, gateway: Option.none(), unusable: Option.none() }
    const chosen = provider.value
    if (!isProvider(chosen)) {
      return {
        provider,
        gateway: Option.none(),
        unusable: Option.some(`it is none of ${SmsGateways.providers.join(", ")}`)
      }
    }
    return Either.match(gatewayOf(chosen, credentials), {
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
 * `SMS_TEST_OTP` as Supabase Auth reads a map (`phone:code,phone:code`). Its numbers, written
 * with or without `+` (Supabase's `config.toml` writes `4152127777`), are read as clients'
 * numbers are and kept as phones are stored. One that is no number at all could never match a
 * user and is refused, where Supabase Auth keeps it silently (docs/compatibility.md).
 */
export const parseTestOtp = (value: string): Either.Either<ReadonlyMap<Phone, string>, string> => {
  const codes = new Map<Phone, string>()
  if (value.trim() === "") return Either.right(codes)
  for (const pair of value.split(",")) {
    const parts = pair.split(":")
    const phone = parts[0]?.trim() ?? ""
    const code = parts[1]?.trim() ?? ""
    if (parts.length !== 2 || phone === "" || code === "") return Either.left(testOtpExpected)
    const normalized = parsePhone(phone)
    if (Either.isLeft(normalized))
      return Either.left(`expected phone numbers of 2 to 15 digits, with or without +, not ${phone}`)
    codes.set(normalized.right, code)
  }
  return Either.right(codes)
}

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
