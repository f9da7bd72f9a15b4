import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Provider } from "../../adapters/captcha/auth/CaptchaProviders.js"
import * as ConfigValues from "../ConfigValues.js"
import * as AuthConfigValues from "./AuthConfigValues.js"

/** Captcha protection, when `SECURITY_CAPTCHA_ENABLED` is on. */
export interface CaptchaConfig {
  readonly provider: Provider
  /** Trimmed, as Supabase Auth trims it. */
  readonly secret: Redacted.Redacted
  readonly timeout: Duration.Duration
}

const enabledName = "AUTHSVC_SECURITY_CAPTCHA_ENABLED"
const providerName = "AUTHSVC_SECURITY_CAPTCHA_PROVIDER"
const secretName = "AUTHSVC_SECURITY_CAPTCHA_SECRET"
const timeoutName = "AUTHSVC_SECURITY_CAPTCHA_TIMEOUT"

/** The variables `captcha` reads, for AuthVariables.read. */
export const variables: ReadonlyArray<string> = [enabledName, providerName, secretName, timeoutName]

/** Supabase Auth's time limit, which it also uses for a limit of zero. */
export const defaultTimeout = Duration.seconds(10)

const decodeProvider = Schema.decodeUnknownOption(Provider)

/**
 * `SECURITY_CAPTCHA_*`. As in Supabase Auth, the provider and the secret are checked only when
 * the captcha is on (a deployment may carry them switched off), while a time limit that does
 * not parse is refused either way; each problem is one line naming its variable.
 */
export const captcha: Config.Config<Option.Option<CaptchaConfig>> = Config.all({
  enabled: ConfigValues.bool(enabledName, false),
  provider: Config.string(providerName).pipe(Config.withDefault("hcaptcha")),
  secret: Config.option(Config.redacted(secretName)),
  timeout: AuthConfigValues.secondsOrDuration(timeoutName, defaultTimeout)
}).pipe(
  Config.mapOrFail((captcha): Either.Either<Option.Option<CaptchaConfig>, ConfigError.ConfigError> => {
    if (!captcha.enabled) return Either.right(Option.none())
    const provider = decodeProvider(captcha.provider.trim())
    const secret = Option.match(captcha.secret, {
      onNone: () => "",
      onSome: (value) => Redacted.value(value).trim()
    })
    if (Option.isSome(provider) && secret !== "") {
      return Either.right(
        Option.some({
          provider: provider.value,
          secret: Redacted.make(secret),
          timeout: Duration.isZero(captcha.timeout) ? defaultTimeout : captcha.timeout
        })
      )
    }
    const problems = [
      ...(Option.isNone(provider)
        ? [ConfigValues.invalid(providerName, "expected hcaptcha or turnstile")]
        : []),
      ...(secret === "" ? [ConfigValues.invalid(secretName, `is required with ${enabledName}`)] : [])
    ]
    // Not empty: one of the two checks above failed.
    return Either.left(problems.reduce((left, right) => ConfigError.And(left, right)))
  })
)
