import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as CaptchaProviders from "../../../adapters/captcha/auth/CaptchaProviders.js"
import * as HCaptchaFake from "../../support/auth/captcha/HCaptchaFake.js"
import type * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as Allowed from "../../support/outbound/Allowed.js"
import * as InProcessAuth from "./InProcessAuth.js"

/** The hCaptcha secret of the site the service is configured with. */
export const secret = "0x-hcaptcha-secret-of-the-site"

/** The auth service with captcha protection, verified by the hCaptcha adapter against a local fake. */
export interface CaptchaAuth {
  readonly baseUrl: string
  /** The fake of hCaptcha's siteverify: what it answers, what it was asked. */
  readonly hcaptcha: SiteVerifyFake.Fake
  readonly anonKey: string
  readonly serviceKey: string
  /** Stops the service and the fake. */
  readonly close: () => Promise<void>
}

/** Starts both, for a test file's `beforeAll`, with `env` over the captcha's variables; `close` in its `afterAll`. */
export const start = async (
  env: Readonly<Record<string, string>> = {},
  options: { readonly clock?: Clock.Clock } = {}
): Promise<CaptchaAuth> => {
  const scope = Effect.runSync(Scope.make())
  const hcaptcha = await Effect.runPromise(Scope.extend(HCaptchaFake.start(secret), scope))
  const running = await Effect.runPromise(
    Scope.extend(
      InProcessAuth.start({
        ...options,
        env: {
          AUTHSVC_SECURITY_CAPTCHA_ENABLED: "true",
          AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "hcaptcha",
          AUTHSVC_SECURITY_CAPTCHA_SECRET: secret,
          ...env
        },
        // The real hCaptcha adapter, pointed at the local fake of its siteverify.
        captcha: CaptchaProviders.layer(
          Option.some({
            provider: "hcaptcha",
            secret: Redacted.make(secret),
            timeout: Duration.seconds(2),
            baseUrl: hcaptcha.baseUrl,
            // The fake listens on 127.0.0.1, which the outbound guard refuses unless allowed.
            allowedPrivateAddresses: Allowed.localhost
          })
        )
      }),
      scope
    )
  )
  return {
    baseUrl: running.baseUrl,
    hcaptcha,
    anonKey: await SupabaseClientSupport.apiKey("anon"),
    serviceKey: await SupabaseClientSupport.apiKey("service_role"),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
