import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import * as Telemetry from "../../../application/Telemetry.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"
import * as SiteVerify from "./SiteVerify.js"

/** Where Supabase Auth asks hCaptcha; `api.hcaptcha.com` answers the same. */
export const defaultBaseUrl = "https://hcaptcha.com"

export interface HCaptchaSettings {
  /** `SECURITY_CAPTCHA_SECRET`: the account's secret key. */
  readonly secret: Redacted.Redacted
  /** How long one verification may take. */
  readonly timeout: Duration.Duration
  /**
   * The site key the token must have been issued for; none lets any of the account's sites
   * pass, as Supabase Auth does (it has no setting for it).
   */
  readonly siteKey?: Option.Option<string>
  /** The origin `/siteverify` is posted to; tests point it at a local fake. */
  readonly baseUrl?: string
  /** The private addresses the operator allows (`SiteVerify.Call`). */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
}

/**
 * hCaptcha's siteverify: the form fields `secret`, `response` (the token), `remoteip` when the
 * client's address is known and `sitekey` when one is set.
 */
export const make = (settings: HCaptchaSettings): Context.Tag.Service<CaptchaVerifier> => {
  const url = `${(settings.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "")}/siteverify`
  const siteKey = settings.siteKey ?? Option.none()
  const call: SiteVerify.Call = {
    timeout: settings.timeout,
    allowedPrivateAddresses: settings.allowedPrivateAddresses
  }
  return {
    provider: "hcaptcha",
    verify: Telemetry.fn("HCaptcha.verify")(
      (token: string, remoteIp: Option.Option<string>) => {
        const form = new URLSearchParams({ secret: Redacted.value(settings.secret), response: token })
        if (Option.isSome(remoteIp)) form.set("remoteip", remoteIp.value)
        if (Option.isSome(siteKey)) form.set("sitekey", siteKey.value)
        return SiteVerify.post(url, form, call)
      },
      () => ({ "captcha.provider": "hcaptcha" })
    )
  }
}

export const layer = (settings: HCaptchaSettings) => Layer.succeed(CaptchaVerifier, make(settings))
