import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as MfaConfig from "../../../bootstrap/auth/MfaConfig.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"

const load = (env: Record<string, string>) =>
  Effect.withConfigProvider(
    MfaConfig.mfa,
    AuthEnvironment.provider(AuthEnvironment.merge(Option.none(), env))
  ).pipe(Effect.either, Effect.map(Either.mapLeft(ConfigReport.lines)))

/** The config of a start that must succeed. */
const config = (env: Record<string, string>) => Effect.map(load(env), Either.getOrThrow)

/** The report of a start that must fail. */
const report = (env: Record<string, string>) =>
  Effect.map(load(env), (result) => Either.getOrThrowWith(Either.flip(result), () => "the start succeeded"))

const relyingParty = {
  AUTHSVC_WEBAUTHN_RP_ID: "example.com",
  AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "Example",
  AUTHSVC_WEBAUTHN_RP_ORIGINS: "https://app.example.com, android:apk-key-hash:abc"
}

const required =
  "is required with AUTHSVC_PASSKEY_ENABLED, AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED or _VERIFY_ENABLED on"

describe("MFA, WebAuthn and passkey configuration", () => {
  it.effect("applies Supabase Auth's defaults: TOTP on, phone, WebAuthn and passkeys off", () =>
    Effect.gen(function* () {
      expect(yield* config({})).toEqual({
        challengeExpiry: Duration.seconds(300),
        factorExpiry: Duration.seconds(300),
        limits: { maxEnrolled: 10, maxVerified: 10 },
        switches: {
          totp: { enroll: true, verify: true },
          phone: { enroll: false, verify: false },
          webauthn: { enroll: false, verify: false },
          recovery_code: { enroll: true, verify: true }
        },
        phone: { otpLength: 6, maxFrequency: Duration.minutes(1), template: "Your code is {{ .Code }}" },
        relyingParty: Option.none(),
        webAuthnChallengeExpiry: Duration.minutes(5),
        passkeys: { enabled: false, maxPerUser: 10 }
      })
    })
  )

  it.effect("reads each switch, WebAuthn's spelt WEB_AUTHN as Supabase Auth's envconfig spells it", () =>
    Effect.gen(function* () {
      const c = yield* config({
        ...relyingParty,
        AUTHSVC_MFA_TOTP_ENROLL_ENABLED: "false",
        AUTHSVC_MFA_TOTP_VERIFY_ENABLED: "0",
        AUTHSVC_MFA_PHONE_ENROLL_ENABLED: "true",
        AUTHSVC_MFA_PHONE_VERIFY_ENABLED: "t",
        AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED: "TRUE",
        AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED: "1",
        AUTHSVC_MFA_RECOVERY_CODES_ENROLL_ENABLED: "false",
        AUTHSVC_MFA_RECOVERY_CODES_VERIFY_ENABLED: "False",
        AUTHSVC_PASSKEY_ENABLED: "true",
        AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER: "3"
      })
      expect(c.switches).toEqual({
        totp: { enroll: false, verify: false },
        phone: { enroll: true, verify: true },
        webauthn: { enroll: true, verify: true },
        recovery_code: { enroll: false, verify: false }
      })
      expect(c.passkeys).toEqual({ enabled: true, maxPerUser: 3 })
      expect(yield* report({ AUTHSVC_MFA_TOTP_ENROLL_ENABLED: "yes" })).toEqual([
        "AUTHSVC_MFA_TOTP_ENROLL_ENABLED: expected true or false (also 1/0, t/f)"
      ])
    })
  )

  it.effect("reads the lifetimes and limits as Supabase Auth types them, raising what it raises", () =>
    Effect.gen(function* () {
      const c = yield* config({
        // A float64 of seconds, and a Go duration.
        AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION: "600.5",
        AUTHSVC_MFA_FACTOR_EXPIRY_DURATION: "1h30m",
        // A float64: the whole part counts, as Go's int() takes it.
        AUTHSVC_MFA_MAX_ENROLLED_FACTORS: "12.9",
        AUTHSVC_MFA_MAX_VERIFIED_FACTORS: "4",
        AUTHSVC_MFA_PHONE_MAX_FREQUENCY: "30s",
        AUTHSVC_MFA_PHONE_OTP_LENGTH: "8",
        AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: "2m"
      })
      expect(Duration.toMillis(c.challengeExpiry)).toBe(Duration.toMillis(Duration.millis(600_500)))
      expect(Duration.toMillis(c.factorExpiry)).toBe(Duration.toMillis(Duration.minutes(90)))
      expect(c.limits).toEqual({ maxEnrolled: 12, maxVerified: 4 })
      expect(Duration.toMillis(c.phone.maxFrequency)).toBe(Duration.toMillis(Duration.seconds(30)))
      expect(c.phone.otpLength).toBe(8)
      expect(Duration.toMillis(c.webAuthnChallengeExpiry)).toBe(Duration.toMillis(Duration.minutes(2)))
      // Under 300 s is 300 s; a phone spacing of 0 is a minute; a length out of 6–10 is 6.
      const raised = yield* config({
        AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION: "30",
        AUTHSVC_MFA_FACTOR_EXPIRY_DURATION: "1m",
        AUTHSVC_MFA_PHONE_MAX_FREQUENCY: "0",
        AUTHSVC_MFA_PHONE_OTP_LENGTH: "4"
      })
      expect(Duration.toMillis(raised.challengeExpiry)).toBe(Duration.toMillis(Duration.seconds(300)))
      expect(Duration.toMillis(raised.factorExpiry)).toBe(Duration.toMillis(Duration.seconds(300)))
      expect(Duration.toMillis(raised.phone.maxFrequency)).toBe(Duration.toMillis(Duration.minutes(1)))
      expect(raised.phone.otpLength).toBe(6)
    })
  )

  it.effect("stops on a value of each kind that does not read, one line each", () =>
    Effect.gen(function* () {
      expect(
        yield* report({
          AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION: "5m",
          AUTHSVC_MFA_FACTOR_EXPIRY_DURATION: "soon",
          AUTHSVC_MFA_MAX_ENROLLED_FACTORS: "ten",
          AUTHSVC_MFA_MAX_VERIFIED_FACTORS: "2.5",
          AUTHSVC_MFA_PHONE_MAX_FREQUENCY: "1 minute",
          AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER: "-1"
        })
      ).toEqual([
        "AUTHSVC_MFA_CHALLENGE_EXPIRY_DURATION: expected a number of seconds, e.g. 300",
        "AUTHSVC_MFA_FACTOR_EXPIRY_DURATION: expected seconds or a Go duration, e.g. 10, 10s or 1m30s",
        "AUTHSVC_MFA_MAX_ENROLLED_FACTORS: expected a number of factors, e.g. 10",
        "AUTHSVC_MFA_MAX_VERIFIED_FACTORS: expected a whole number, 0 or more",
        "AUTHSVC_MFA_PHONE_MAX_FREQUENCY: expected seconds or a Go duration, e.g. 10, 10s or 1m30s",
        "AUTHSVC_PASSKEY_MAX_PASSKEYS_PER_USER: expected a whole number, 0 or more"
      ])
    })
  )

  it.effect("checks the phone text only while phone factors are on, as Supabase Auth does", () =>
    Effect.gen(function* () {
      const broken = "Your code is {{ .Code "
      expect((yield* config({ AUTHSVC_MFA_PHONE_TEMPLATE: broken })).phone.template).toBe(broken)
      expect(
        yield* report({ AUTHSVC_MFA_PHONE_VERIFY_ENABLED: "true", AUTHSVC_MFA_PHONE_TEMPLATE: broken })
      ).toEqual(["AUTHSVC_MFA_PHONE_TEMPLATE: does not parse as a template: unclosed action at 13"])
      const template = "{{ .Code }} is your Example code"
      expect(
        (yield* config({ AUTHSVC_MFA_PHONE_ENROLL_ENABLED: "true", AUTHSVC_MFA_PHONE_TEMPLATE: template }))
          .phone.template
      ).toBe(template)
    })
  )

  describe("the relying party", () => {
    it.effect("is read while passkeys or WebAuthn factors are on, origins trimmed", () =>
      Effect.gen(function* () {
        for (const on of [
          "AUTHSVC_PASSKEY_ENABLED",
          "AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED",
          "AUTHSVC_MFA_WEB_AUTHN_VERIFY_ENABLED"
        ]) {
          expect((yield* config({ ...relyingParty, [on]: "true" })).relyingParty).toEqual(
            Option.some({
              id: "example.com",
              displayName: "Example",
              origins: ["https://app.example.com", "android:apk-key-hash:abc"]
            })
          )
        }
        // Off, nothing reads it: not even a wrong one stops the start.
        expect(
          (yield* config({ AUTHSVC_WEBAUTHN_RP_ID: "https://example.com", AUTHSVC_WEBAUTHN_RP_ORIGINS: "x" }))
            .relyingParty
        ).toEqual(Option.none())
      })
    )

    it.effect("stops the start when one is missing, one line per variable (Supabase Auth only warns)", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_PASSKEY_ENABLED: "true" })).toEqual([
          `AUTHSVC_WEBAUTHN_RP_ID: ${required}`,
          `AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: ${required}`,
          `AUTHSVC_WEBAUTHN_RP_ORIGINS: ${required}`
        ])
        expect(
          yield* report({
            ...relyingParty,
            AUTHSVC_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
            AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: " "
          })
        ).toEqual([`AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: ${required}`])
      })
    )

    it.effect(
      "takes an ID, origins or a challenge lifetime no ceremony can pass, as Supabase Auth does",
      () =>
        Effect.gen(function* () {
          const taken = yield* config({
            AUTHSVC_PASSKEY_ENABLED: "true",
            AUTHSVC_WEBAUTHN_RP_ID: "https://example.com:443",
            AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "Example",
            AUTHSVC_WEBAUTHN_RP_ORIGINS: "https://app.example.com,app.example.com",
            AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: "0s"
          })
          expect(taken.relyingParty).toEqual(
            Option.some({
              id: "https://example.com:443",
              displayName: "Example",
              origins: ["https://app.example.com", "app.example.com"]
            })
          )
          expect(Duration.isZero(taken.webAuthnChallengeExpiry)).toBe(true)
          expect(yield* report({ AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: "5 minutes" })).toEqual([
            "AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
          ])
        })
    )
  })
})
