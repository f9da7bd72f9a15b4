import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Captcha from "../../../application/auth/Captcha.js"
import type { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"
import * as HCaptcha from "./HCaptcha.js"
import * as Turnstile from "./Turnstile.js"

/** `SECURITY_CAPTCHA_PROVIDER`'s values, as Supabase Auth spells them. */
export const Provider = Schema.Literal("hcaptcha", "turnstile")
export type Provider = typeof Provider.Type

export interface CaptchaProviderSettings {
  readonly provider: Provider
  readonly secret: Redacted.Redacted
  readonly timeout: Duration.Duration
  /** The provider's origin; its real one when unset. For tests against a local fake. */
  readonly baseUrl?: string
  /**
   * The private addresses the operator allows (`AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`),
   * which the outbound guard refuses otherwise.
   */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
}

/** The verifier of `settings.provider`. */
export const verifier = (settings: CaptchaProviderSettings): Layer.Layer<CaptchaVerifier> => {
  const common = {
    secret: settings.secret,
    timeout: settings.timeout,
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
    ...(settings.allowedPrivateAddresses === undefined
      ? {}
      : { allowedPrivateAddresses: settings.allowedPrivateAddresses })
  }
  switch (settings.provider) {
    case "hcaptcha":
      return HCaptcha.layer(common)
    case "turnstile":
      return Turnstile.layer(common)
  }
}

/**
 * Captcha protection as configured: none leaves it off (`Captcha.check` lets every request
 * through), some turns it on with that provider's verifier.
 */
export const layer = (
  settings: Option.Option<CaptchaProviderSettings>
): Layer.Layer<Captcha.CaptchaSettings | CaptchaVerifier> =>
  Option.match(settings, {
    onNone: () => Captcha.disabled,
    onSome: (chosen) =>
      Layer.merge(Layer.succeed(Captcha.CaptchaSettings, { enabled: true }), verifier(chosen))
  })
