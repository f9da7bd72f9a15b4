import * as Effect from "effect/Effect"
import { AuthSettings } from "../../../application/auth/AuthSettings.js"
import { MfaSettings } from "../../../application/auth/MfaSettings.js"
import * as HttpMessage from "../HttpMessage.js"

/**
 * GET /settings — the spec's Settings response (`external` with every provider of the spec,
 * `disable_signup`, `autoconfirm`) merged with Supabase Auth's (`email`, `phone` and
 * `anonymous_users` under `external`, `mailer_autoconfirm`, `phone_autoconfirm`, `sms_provider`,
 * `saml_enabled`, `passkeys_enabled`), so clients written against either read what they expect.
 */
export const handle = () =>
  Effect.map(Effect.zip(AuthSettings, MfaSettings), ([settings, mfa]) =>
    HttpMessage.json({
      external: {
        anonymous_users: settings.anonymousEnabled,
        ...settings.providers,
        email: settings.emailEnabled,
        phone: settings.phoneEnabled
      },
      disable_signup: settings.disableSignup,
      // The spec's single flag: sign-ups by email are confirmed at once.
      autoconfirm: settings.mailerAutoconfirm,
      mailer_autoconfirm: settings.mailerAutoconfirm,
      phone_autoconfirm: settings.smsAutoconfirm,
      sms_provider: settings.smsProvider,
      saml_enabled: false,
      passkeys_enabled: mfa.passkeys.enabled
    })
  )
