import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import { CaptchaVerifier } from "./ports/CaptchaVerifier.js"

/** `SECURITY_CAPTCHA_ENABLED`: whether the requests Supabase Auth guards need a captcha token. */
export class CaptchaSettings extends Context.Tag("latchkey/auth/CaptchaSettings")<
  CaptchaSettings,
  { readonly enabled: boolean }
>() {}

/**
 * Captcha off: every request passes. The verifier is there only to satisfy the type of `check`,
 * which never asks it while the setting is off; being asked anyway is a wiring bug, so it dies.
 */
export const disabled: Layer.Layer<CaptchaSettings | CaptchaVerifier> = Layer.merge(
  Layer.succeed(CaptchaSettings, { enabled: false }),
  Layer.succeed(CaptchaVerifier, {
    provider: "none",
    verify: () => Effect.dieMessage("the captcha verifier was asked while captcha protection is off")
  })
)

/**
 * The captcha check of Supabase Auth's `verifyCaptcha`, once the caller has decided that the
 * request is one it guards and that its bearer is not an admin. `captchaToken` is the body's
 * `gotrue_meta_security.captcha_token`, trimmed as there; `remoteIp` the client's address.
 *
 * A missing or refused token is 400 `captcha_failed`, with the provider's error codes in the
 * message. A provider that gives no verdict is a 500 (`unexpected_failure`, "captcha
 * verification process failed"), as in Supabase Auth: the request is refused rather than let
 * through unchecked, and the client is told it is not its fault.
 */
export const check = Telemetry.fn("Captcha.check")(
  (captchaToken: string | undefined, remoteIp: Option.Option<string>) =>
    Effect.gen(function* () {
      const settings = yield* CaptchaSettings
      if (!settings.enabled) return
      const token = (captchaToken ?? "").trim()
      if (token === "") return yield* new AuthError.CaptchaMissing()
      const verifier = yield* CaptchaVerifier
      const outcome = yield* verifier.verify(token, remoteIp).pipe(
        Effect.catchTag("CaptchaUnavailable", (unavailable) =>
          Effect.logError("captcha verification failed: the provider gave no verdict").pipe(
            Effect.annotateLogs({
              "captcha.provider": verifier.provider,
              "captcha.error": unavailable.message
            }),
            Effect.zipRight(Effect.fail(new AuthError.CaptchaUnverifiable()))
          )
        )
      )
      if (outcome._tag === "Refused")
        return yield* new AuthError.CaptchaRefused({ errorCodes: outcome.errorCodes })
    })
)
