import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as AuthStart from "../../../bootstrap/auth/AuthStart.js"
import * as GoTrueNames from "../../../bootstrap/auth/GoTrueNames.js"

const variables = (env: Record<string, string>) => AuthEnvironment.merge(Option.none(), env)

describe("Supabase Auth's variable names", () => {
  it("reads GOTRUE_<NAME> as AUTHSVC_<NAME>, and says which were read", () => {
    const translated = GoTrueNames.translate(
      variables({
        GOTRUE_SITE_URL: "https://app.example.com",
        GOTRUE_SMTP_HOST: "mail.example.com",
        PATH: "/usr/bin"
      })
    )
    expect(translated.variables.get("AUTHSVC_SITE_URL")).toBe("https://app.example.com")
    expect(translated.variables.get("AUTHSVC_SMTP_HOST")).toBe("mail.example.com")
    expect(translated.variables.get("PATH")).toBe("/usr/bin")
    expect(GoTrueNames.notice(translated)).toEqual([
      "read Supabase Auth's names as latchkey's: GOTRUE_SITE_URL, GOTRUE_SMTP_HOST"
    ])
  })

  it("lets an AUTHSVC_ name win over its GOTRUE_ name, and says which were left", () => {
    const translated = GoTrueNames.translate(
      variables({
        AUTHSVC_SITE_URL: "https://ours.example.com",
        GOTRUE_SITE_URL: "https://theirs.example.com",
        GOTRUE_JWT_EXP: "600"
      })
    )
    expect(translated.variables.get("AUTHSVC_SITE_URL")).toBe("https://ours.example.com")
    expect(translated.variables.get("AUTHSVC_JWT_EXP")).toBe("600")
    expect(GoTrueNames.notice(translated)).toEqual([
      "read Supabase Auth's names as latchkey's: GOTRUE_JWT_EXP; left for their AUTHSVC_ names, which are set too: GOTRUE_SITE_URL"
    ])
  })

  it("reads the names Supabase Auth reads unprefixed or under its own section prefix", () => {
    const unprefixed = GoTrueNames.translate(
      variables({
        API_EXTERNAL_URL: "https://auth.example.com",
        DB_NAMESPACE: "auth",
        REQUEST_ID_HEADER: "X-Id"
      })
    )
    expect(Object.fromEntries(unprefixed.variables)).toMatchObject({
      AUTHSVC_API_EXTERNAL_URL: "https://auth.example.com",
      AUTHSVC_DB_NAMESPACE: "auth",
      AUTHSVC_REQUEST_ID_HEADER: "X-Id"
    })
    // Supabase Auth's loader keeps the section's prefix before a field's own name.
    const sectioned = GoTrueNames.translate(
      variables({
        GOTRUE_API_API_EXTERNAL_URL: "https://sectioned.example.com",
        API_EXTERNAL_URL: "https://bare.example.com",
        GOTRUE_LOG_LEVEL: "debug"
      })
    )
    expect(sectioned.variables.get("AUTHSVC_API_EXTERNAL_URL")).toBe("https://sectioned.example.com")
    expect(sectioned.variables.get("LOG_LEVEL")).toBe("debug")
  })

  it.effect("names an SMS gateway's empty credentials as they were written", () =>
    Effect.gen(function* () {
      const loaded = yield* AuthStart.fromVariables(
        "alone",
        variables({
          GOTRUE_SITE_URL: "https://app.example.com",
          API_EXTERNAL_URL: "https://auth.example.com",
          GOTRUE_JWT_SECRET: "the-operator-s-own-secret-of-32-chars",
          GOTRUE_SMS_PROVIDER: "twilio",
          GOTRUE_SMS_TWILIO_ACCOUNT_SID: "AC123",
          GOTRUE_SMS_TWILIO_AUTH_TOKEN: "   "
        })
      )
      expect(loaded.config.sms.gateway).toEqual(Option.none())
      expect(loaded.warnings).toEqual([
        `GOTRUE_SMS_PROVIDER is twilio, but GOTRUE_SMS_TWILIO_AUTH_TOKEN, AUTHSVC_SMS_TWILIO_MESSAGE_SERVICE_SID are unset: no text can be sent, and the phone flows answer 422 sms_send_failed "Unable to get SMS provider" (SMS_TEST_OTP numbers still work)`
      ])
    })
  )

  it.effect("names variables in warnings as they were written", () =>
    Effect.gen(function* () {
      const loaded = yield* AuthStart.fromVariables(
        "alone",
        variables({
          GOTRUE_SITE_URL: "https://app.example.com",
          API_EXTERNAL_URL: "https://auth.example.com",
          GOTRUE_JWT_SECRET: "short",
          GOTRUE_SESSIONS_TIMEBOX: "24h",
          GOTRUE_SESSIONS_TAGS: "web,mobile",
          GOTRUE_SITEURL: "typo"
        })
      )
      expect(loaded.config.siteUrl).toBe("https://app.example.com")
      expect(loaded.config.api.externalUrl).toBe("https://auth.example.com")
      expect(Option.map(loaded.config.sessions.timebox, Duration.toHours)).toEqual(Option.some(24))
      expect(loaded.notices).toEqual([
        "read Supabase Auth's names as latchkey's: API_EXTERNAL_URL, GOTRUE_JWT_SECRET, GOTRUE_SESSIONS_TAGS, GOTRUE_SESSIONS_TIMEBOX, GOTRUE_SITEURL, GOTRUE_SITE_URL"
      ])
      expect(loaded.warnings).toEqual([
        "ignored until their feature lands: GOTRUE_SESSIONS_TAGS",
        "unknown variables, ignored: GOTRUE_SITEURL",
        "GOTRUE_JWT_SECRET has 5 characters: anyone holding one token can try to guess a key this short offline, then sign tokens of any user; use at least 32 random characters"
      ])
    })
  )
})
