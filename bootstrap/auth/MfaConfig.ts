import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { RelyingParty, FactorSwitches as Switches } from "../../application/auth/MfaSettings.js"
import * as Factor from "../../domain/auth/Factor.js"
import * as FactorChallenge from "../../domain/auth/FactorChallenge.js"
import * as Passkey from "../../domain/auth/Passkey.js"
import * as ConfigValues from "../ConfigValues.js"
import * as AuthConfigValues from "./AuthConfigValues.js"
import * as SmsConfig from "./SmsConfig.js"

/**
 * Multi-factor authentication, WebAuthn and passkeys: Supabase Auth's `MFA_*`, `WEBAUTHN_*` and
 * `PASSKEY_*` settings (its `internal/conf` `MFAConfiguration`, `WebAuthnConfiguration`,
 * `PasskeyConfiguration`), with the `AUTHSVC_` prefix, read as it reads them
 * (docs/decisions/0015, "Configuration"). The two rate limits are read with the others
 * (`AuthConfig.rateLimit`).
 */

export interface MfaConfig {
  /** `MFA_CHALLENGE_EXPIRY_DURATION`, seconds; under 300 s it is 300 s, as in Supabase Auth. */
  readonly challengeExpiry: Duration.Duration
  /** `MFA_FACTOR_EXPIRY_DURATION`; under 300 s it is 300 s, as in Supabase Auth. */
  readonly factorExpiry: Duration.Duration
  /** `MFA_MAX_ENROLLED_FACTORS` (a fraction's whole part) and `MFA_MAX_VERIFIED_FACTORS`. */
  readonly limits: Factor.Limits
  /** The switches of each factor type (`MFA_<TYPE>_ENROLL_ENABLED`, `…_VERIFY_ENABLED`). */
  readonly switches: Readonly<Record<Factor.FactorType, Switches>>
  /** Texted factor codes: `MFA_PHONE_OTP_LENGTH`, `MFA_PHONE_MAX_FREQUENCY`, `MFA_PHONE_TEMPLATE`. */
  readonly phone: {
    readonly otpLength: number
    readonly maxFrequency: Duration.Duration
    /** Go template syntax (`{{ .Code }}`); checked to parse while phone factors are on. */
    readonly template: string
  }
  /** None while neither passkeys nor WebAuthn factors are on (then nothing reads it). */
  readonly relyingParty: Option.Option<RelyingParty>
  /** `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`: how long a passkey ceremony's challenge lives. */
  readonly webAuthnChallengeExpiry: Duration.Duration
  /** `PASSKEY_ENABLED`, `PASSKEY_MAX_PASSKEYS_PER_USER`. */
  readonly passkeys: { readonly enabled: boolean; readonly maxPerUser: number }
}

const challengeExpiryName = "AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION"
const factorExpiryName = "AUTHSVC_MFA_FACTOR_EXPIRY_DURATION"
const maxEnrolledName = "AUTHSVC_MFA_MAX_ENROLLED_FACTORS"
const maxVerifiedName = "AUTHSVC_MFA_MAX_VERIFIED_FACTORS"
const phoneOtpLengthName = "AUTHSVC_MFA_PHONE_OTP_LENGTH"
const phoneMaxFrequencyName = "AUTHSVC_MFA_PHONE_MAX_FREQUENCY"
const phoneTemplateName = "AUTHSVC_MFA_PHONE_TEMPLATE"
const rpIdName = "AUTHSVC_WEBAUTHN_RP_ID"
const rpDisplayNameName = "AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME"
const rpOriginsName = "AUTHSVC_WEBAUTHN_RP_ORIGINS"
const webAuthnChallengeExpiryName = "AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION"
const passkeyEnabledName = "AUTHSVC_PASSKEY_ENABLED"
const passkeyMaxName = "AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER"

/**
 * Each factor type's switch prefix, as Supabase Auth's envconfig spells it: `split_words` turns
 * `WebAuthn` into `WEB_AUTHN`. Recovery codes are not in Supabase Auth; their switches are named
 * after the others and auth-js's error codes (`mfa_recovery_codes_enroll_not_enabled`).
 */
const switchPrefix: Readonly<Record<Factor.FactorType, string>> = {
  totp: "AUTHSVC_MFA_TOTP",
  phone: "AUTHSVC_MFA_PHONE",
  webauthn: "AUTHSVC_MFA_WEB_AUTHN",
  recovery_code: "AUTHSVC_MFA_RECOVERY_CODES"
}

/** Supabase Auth's defaults: TOTP on, phone and WebAuthn opt-in; recovery codes on (ours). */
const switchDefault: Readonly<Record<Factor.FactorType, boolean>> = {
  totp: true,
  phone: false,
  webauthn: false,
  recovery_code: true
}

/** The variables `mfa` reads, for AuthVariables.read. */
export const variables: ReadonlyArray<string> = [
  challengeExpiryName,
  factorExpiryName,
  maxEnrolledName,
  maxVerifiedName,
  ...Factor.FactorType.literals.flatMap((type) => [
    `${switchPrefix[type]}_ENROLL_ENABLED`,
    `${switchPrefix[type]}_VERIFY_ENABLED`
  ]),
  phoneOtpLengthName,
  phoneMaxFrequencyName,
  phoneTemplateName,
  rpIdName,
  rpDisplayNameName,
  rpOriginsName,
  webAuthnChallengeExpiryName,
  passkeyEnabledName,
  passkeyMaxName
]

/** Supabase Auth's least time between two texted factor codes to one factor. */
export const defaultPhoneMaxFrequency = Duration.minutes(1)

/** A Go `float64` setting, 0 or more (`AuthConfigValues.parseCount`). */
const decimalNamed = (name: string, fallback: number, expected: string) =>
  ConfigValues.check(name, Config.string(name).pipe(Config.withDefault(String(fallback))), (value) => {
    const count = AuthConfigValues.parseCount(value)
    return count !== undefined ? Either.right(count) : Either.left(expected)
  })

const switchesField = Config.all(
  Factor.FactorType.literals.map((type) =>
    Config.all({
      enroll: ConfigValues.bool(`${switchPrefix[type]}_ENROLL_ENABLED`, switchDefault[type]),
      verify: ConfigValues.bool(`${switchPrefix[type]}_VERIFY_ENABLED`, switchDefault[type])
    }).pipe(Config.map((switches) => [type, switches] as const))
  )
).pipe(
  Config.map((entries): Readonly<Record<Factor.FactorType, Switches>> => {
    const off = { enroll: false, verify: false }
    const switches: Record<Factor.FactorType, Switches> = {
      totp: off,
      phone: off,
      webauthn: off,
      recovery_code: off
    }
    for (const [type, value] of entries) switches[type] = value
    return switches
  })
)

/**
 * `WEBAUTHN_RP_ID`: the relying party's domain, which browsers match against the page's host. A
 * scheme, port or path makes every ceremony fail; Supabase Auth takes it, so this service does
 * too, and ConfigWarnings says so.
 */
export const rpIdProblem = (value: string): Option.Option<string> =>
  /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(value.trim())
    ? Option.none()
    : Option.some("a domain name such as example.com is expected, without scheme, port or path")

/**
 * `WEBAUTHN_RP_ORIGINS`: origins as the client data carries them: `https://app.example.com`, or
 * an app's (`android:apk-key-hash:…`). An entry that is no URL at all can never match one.
 */
export const originsProblem = (origins: ReadonlyArray<string>): Option.Option<string> => {
  const bad = origins.filter((origin) => !URL.canParse(origin))
  return bad.length === 0
    ? Option.none()
    : Option.some(`${bad.join(", ")} is no origin such as https://app.example.com`)
}

/** Whether anything needs the relying party: passkeys, or WebAuthn factors. */
const usesWebAuthn = (passkeys: boolean, webauthn: Switches): boolean =>
  passkeys || webauthn.enroll || webauthn.verify

const webAuthnSwitches = `${passkeyEnabledName}, ${switchPrefix.webauthn}_ENROLL_ENABLED or _VERIFY_ENABLED`

/**
 * Everything about factors and passkeys, validated together; read beside `AuthConfig.server`.
 * The relying party and the phone template are checked only while something uses them, as
 * Supabase Auth checks them; without a relying party the start stops, as Supabase Auth's does,
 * with one line per missing variable.
 */
export const mfa: Config.Config<MfaConfig> = Config.all({
  challengeExpiry: decimalNamed(
    challengeExpiryName,
    Duration.toSeconds(FactorChallenge.minimumLifetime),
    "expected a number of seconds, e.g. 300"
  ),
  factorExpiry: AuthConfigValues.secondsOrDuration(factorExpiryName, Factor.minimumUnverifiedLifetime),
  maxEnrolled: decimalNamed(
    maxEnrolledName,
    Factor.defaultLimits.maxEnrolled,
    "expected a number of factors, e.g. 10"
  ),
  maxVerified: AuthConfigValues.wholeNumberNamed(maxVerifiedName, Factor.defaultLimits.maxVerified),
  switches: switchesField,
  phoneOtpLength: AuthConfigValues.codeLength(phoneOtpLengthName),
  phoneMaxFrequency: AuthConfigValues.secondsOrDuration(phoneMaxFrequencyName, defaultPhoneMaxFrequency),
  phoneTemplate: Config.string(phoneTemplateName).pipe(Config.withDefault(SmsConfig.defaultTemplate)),
  rpId: Config.option(Config.string(rpIdName)),
  rpDisplayName: Config.option(Config.string(rpDisplayNameName)),
  rpOrigins: ConfigValues.list(rpOriginsName),
  webAuthnChallengeExpiry: AuthConfigValues.secondsOrDuration(
    webAuthnChallengeExpiryName,
    Passkey.defaultChallengeLifetime
  ),
  passkeysEnabled: ConfigValues.bool(passkeyEnabledName, false),
  passkeyMax: AuthConfigValues.wholeNumberNamed(passkeyMaxName, Passkey.defaultMaxPerUser)
}).pipe(
  Config.mapOrFail((fields): Either.Either<MfaConfig, ConfigError.ConfigError> => {
    const problems: Array<ConfigError.ConfigError> = []
    const phone = fields.switches.phone
    // Supabase Auth parses it only while phone factors are on; off, nothing renders it.
    if (phone.enroll || phone.verify) {
      const parsed = SmsConfig.parseTemplate(fields.phoneTemplate)
      if (Either.isLeft(parsed)) problems.push(ConfigValues.invalid(phoneTemplateName, parsed.left))
    }
    let relyingParty = Option.none<RelyingParty>()
    if (usesWebAuthn(fields.passkeysEnabled, fields.switches.webauthn)) {
      const id = Option.filter(fields.rpId, (value) => value.trim() !== "")
      const displayName = Option.filter(fields.rpDisplayName, (value) => value.trim() !== "")
      const required = `is required with ${webAuthnSwitches} on`
      if (Option.isNone(id)) problems.push(ConfigValues.invalid(rpIdName, required))
      if (Option.isNone(displayName)) problems.push(ConfigValues.invalid(rpDisplayNameName, required))
      if (fields.rpOrigins.length === 0) problems.push(ConfigValues.invalid(rpOriginsName, required))
      if (Option.isSome(id) && Option.isSome(displayName) && fields.rpOrigins.length > 0) {
        relyingParty = Option.some({
          id: id.value.trim(),
          displayName: displayName.value,
          origins: fields.rpOrigins
        })
      }
    }
    const [first, ...rest] = problems
    if (first !== undefined)
      return Either.left(rest.reduce((left, right) => ConfigError.And(left, right), first))
    return Either.right({
      challengeExpiry: FactorChallenge.lifetime(Duration.seconds(fields.challengeExpiry)),
      factorExpiry: Factor.unverifiedLifetime(fields.factorExpiry),
      limits: { maxEnrolled: Math.floor(fields.maxEnrolled), maxVerified: fields.maxVerified },
      switches: fields.switches,
      phone: {
        otpLength: fields.phoneOtpLength,
        // 0 is Supabase Auth's "unset", which it replaces by a minute.
        maxFrequency: Duration.isZero(fields.phoneMaxFrequency)
          ? defaultPhoneMaxFrequency
          : fields.phoneMaxFrequency,
        template: fields.phoneTemplate
      },
      relyingParty,
      webAuthnChallengeExpiry: fields.webAuthnChallengeExpiry,
      passkeys: { enabled: fields.passkeysEnabled, maxPerUser: fields.passkeyMax }
    })
  })
)
