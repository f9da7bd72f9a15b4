import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { CaptchaVerifier } from "../../../application/auth/ports/CaptchaVerifier.js"
import * as Telemetry from "../../../application/Telemetry.js"
import type * as PrivateAddresses from "../../outbound/PrivateAddresses.js"
import * as SiteVerify from "./SiteVerify.js"

export const defaultBaseUrl = "https://challenges.cloudflare.com"

export interface TurnstileSettings {
  /** `SECURITY_CAPTCHA_SECRET`: the widget's secret key. */
  readonly secret: Redacted.Redacted
  /** How long one verification may take. */
  readonly timeout: Duration.Duration
  /** The origin `/turnstile/v0/siteverify` is posted to; tests point it at a local fake. */
  readonly baseUrl?: string
  /** The private addresses the operator allows (`SiteVerify.Call`). */
  readonly allowedPrivateAddresses?: PrivateAddresses.AllowList
}

/**
 * Cloudflare Turnstile's siteverify: the form fields `secret`, `response` (the token) and
 * `remoteip` when the client's address is known. No `idempotency_key`: a verification is never
 * retried, since the token is spent by the first attempt whatever became of its answer.
 */
export const make = (settings: TurnstileSettings): Context.Tag.Service<CaptchaVerifier> => {
  const url = `${(settings.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "")}/turnstile/v0/siteverify`
  const call: SiteVerify.Call = {
    timeout: settings.timeout,
    allowedPrivateAddresses: settings.allowedPrivateAddresses
  }
  return {
    provider: "turnstile",
    verify: Telemetry.fn("Turnstile.verify")(
      (token: string, remoteIp: Option.Option<string>) => {
        const form = new URLSearchParams({ secret: Redacted.value(settings.secret), response: token })
        if (Option.isSome(remoteIp)) form.set("remoteip", remoteIp.value)
        return SiteVerify.post(url, form, call)
      },
      () => ({ "captcha.provider": "turnstile" })
    )
  }
}

export const layer = (settings: TurnstileSettings) => Layer.succeed(CaptchaVerifier, make(settings))
