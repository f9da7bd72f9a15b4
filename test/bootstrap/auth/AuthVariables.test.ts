import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthVariables from "../../../bootstrap/auth/AuthVariables.js"

const variables = (names: ReadonlyArray<string>) => new Map(names.map((name) => [name, "x"]))

describe("auth variables", () => {
  it("lists nothing when only variables read now are set", () => {
    expect(AuthVariables.warnings(variables([...AuthVariables.read, "PORT", "DATABASE_URL"]))).toEqual([])
  })

  it("names the set variables of later features on one line, sorted", () => {
    expect(
      AuthVariables.warnings(
        variables([
          "AUTHSVC_SITE_URL",
          "AUTHSVC_OPERATOR_TOKEN",
          "AUTHSVC_API_ENDPOINT",
          "AUTHSVC_JWT_ADMIN_GROUP_NAME",
          "AUTHSVC_JWT_DEFAULT_GROUP_NAME",
          "AUTHSVC_RATE_LIMIT_SSO",
          "AUTHSVC_SESSIONS_TAGS",
          "AUTHSVC_HOOK_CUSTOM_ACCESS_TOKEN_URI",
          "AUTHSVC_SAML_ENABLED"
        ])
      )
    ).toEqual([
      "ignored until their feature lands: AUTHSVC_API_ENDPOINT, " +
        "AUTHSVC_HOOK_CUSTOM_ACCESS_TOKEN_URI, AUTHSVC_JWT_ADMIN_GROUP_NAME, " +
        "AUTHSVC_JWT_DEFAULT_GROUP_NAME, AUTHSVC_OPERATOR_TOKEN, " +
        "AUTHSVC_RATE_LIMIT_SSO, AUTHSVC_SAML_ENABLED, AUTHSVC_SESSIONS_TAGS"
    ])
  })

  it("reads each setting of each provider: the spec's eighteen, and six more of Supabase Auth's", () => {
    expect(AuthVariables.providers).toHaveLength(24)
    for (const provider of AuthVariables.providers) {
      for (const setting of [
        "ENABLED",
        "CLIENT_ID",
        "SECRET",
        "REDIRECT_URI",
        "URL",
        "EMAIL_OPTIONAL",
        "SKIP_NONCE_CHECK"
      ]) {
        expect(AuthVariables.read.has(`AUTHSVC_EXTERNAL_${provider.toUpperCase()}_${setting}`)).toBe(true)
      }
    }
  })

  it("reads the mail server, the subjects, the templates and the notifications now", () => {
    for (const name of [
      "AUTHSVC_SMTP_HOST",
      "AUTHSVC_SMTP_PASS",
      "AUTHSVC_MAILER_SUBJECTS_EMAIL_CHANGE",
      "AUTHSVC_MAILER_TEMPLATES_EMAIL_CHANGE",
      "AUTHSVC_MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED",
      "AUTHSVC_MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED",
      "AUTHSVC_MAILER_SECURE_EMAIL_CHANGE_ENABLED",
      "AUTHSVC_MAILER_URLPATHS_RECOVERY"
    ]) {
      expect(AuthVariables.read.has(name)).toBe(true)
      expect(AuthVariables.isLater(name)).toBe(false)
    }
    expect(AuthVariables.isLater("AUTHSVC_MAILER_EXTERNAL_HOSTS")).toBe(true)
  })

  it("reads the MFA, WebAuthn and passkey settings now, and names a misspelt one as unknown", () => {
    for (const name of [
      "AUTHSVC_MFA_TOTP_ENROLL_ENABLED",
      "AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED",
      "AUTHSVC_MFA_RECOVERY_CODES_ENROLL_ENABLED",
      "AUTHSVC_MFA_PHONE_TEMPLATE",
      "AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION",
      "AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY",
      "AUTHSVC_WEBAUTHN_RP_ORIGINS",
      "AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION",
      "AUTHSVC_PASSKEY_ENABLED",
      "AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER",
      "AUTHSVC_RATE_LIMIT_PASSKEY"
    ]) {
      expect(AuthVariables.read.has(name)).toBe(true)
      expect(AuthVariables.isLater(name)).toBe(false)
    }
    expect(
      AuthVariables.warnings(variables(["AUTHSVC_MFA_WEBAUTHN_ENROLL_ENABLED", "AUTHSVC_PASSKEYS_ENABLED"]))
    ).toEqual(["unknown variables, ignored: AUTHSVC_MFA_WEBAUTHN_ENROLL_ENABLED, AUTHSVC_PASSKEYS_ENABLED"])
  })

  it("reads the autoconfirm switches now, though their families come later", () => {
    expect(AuthVariables.isLater("AUTHSVC_MAILER_AUTOCONFIRM")).toBe(false)
    expect(AuthVariables.isLater("AUTHSVC_SMS_AUTOCONFIRM")).toBe(false)
    expect(
      AuthVariables.warnings(variables(["AUTHSVC_MAILER_AUTOCONFIRM", "AUTHSVC_SMS_AUTOCONFIRM"]))
    ).toEqual([])
  })

  it("names unknown AUTHSVC_ variables on a line of their own, never other variables", () => {
    expect(
      AuthVariables.warnings(
        variables([
          "AUTHSVC_SITEURL",
          "AUTHSVC_SESSIONS_TAGS",
          "AUTHSVC_EXTERNAL_MASTODON_ENABLED",
          "AUTHSVC_EXTERNAL_VERCEL_MARKETPLACE_ENABLED",
          "GOTRUE_SITE_URL",
          "PATH"
        ])
      )
    ).toEqual([
      "ignored until their feature lands: AUTHSVC_EXTERNAL_VERCEL_MARKETPLACE_ENABLED, AUTHSVC_SESSIONS_TAGS",
      "unknown variables, ignored: AUTHSVC_EXTERNAL_MASTODON_ENABLED, AUTHSVC_SITEURL"
    ])
  })

  it.effect("knows exactly the AUTHSVC_ variables AuthConfig.server reads", () =>
    Effect.gen(function* () {
      const asked = new Set<string>()
      const base = ConfigProvider.fromMap(
        new Map([
          ["AUTHSVC_SITE_URL", "https://app.example.com"],
          ["AUTHSVC_API_EXTERNAL_URL", "https://auth.example.com"]
        ])
      ).flattened
      const recording = ConfigProvider.fromFlat(
        ConfigProvider.makeFlat({
          load: (path, primitive, split) => {
            asked.add(path.join("_"))
            return base.load(path, primitive, split)
          },
          enumerateChildren: (path) => base.enumerateChildren(path),
          patch: base.patch
        })
      )
      yield* Effect.withConfigProvider(AuthConfig.server, recording)
      const prefixed = [...asked].filter((name) => name.startsWith(AuthVariables.prefix))
      expect(prefixed.sort()).toEqual([...AuthVariables.read].sort())
    })
  )
})
