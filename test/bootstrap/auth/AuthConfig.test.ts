import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as ConfigWarnings from "../../../bootstrap/auth/ConfigWarnings.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"
import * as Session from "../../../domain/auth/Session.js"

const required = {
  AUTHSVC_SITE_URL: "https://app.example.com",
  AUTHSVC_API_EXTERNAL_URL: "https://auth.example.com"
}

const loadFrom = (fileText: Option.Option<string>, env: Record<string, string>) =>
  Effect.withConfigProvider(
    AuthConfig.server,
    AuthEnvironment.provider(AuthEnvironment.merge(fileText, { ...required, ...env }))
  ).pipe(Effect.either, Effect.map(Either.mapLeft(ConfigReport.lines)))

const load = (env: Record<string, string>) => loadFrom(Option.none(), env)

/** The config of a start that must succeed. */
const config = (env: Record<string, string>) => Effect.map(load(env), Either.getOrThrow)

/** The warnings of a start that must succeed (ConfigWarnings), each naming its variable. */
const warningsOf = (env: Record<string, string>) =>
  Effect.map(config(env), (c) =>
    ConfigWarnings.warnings(c, AuthEnvironment.merge(Option.none(), { ...required, ...env }))
  )

/** The report of a start that must fail. */
const report = (env: Record<string, string>) =>
  Effect.map(load(env), (result) => Either.getOrThrowWith(Either.flip(result), () => "the start succeeded"))

describe("auth configuration", () => {
  it.effect("applies the defaults with only the two required URLs set", () =>
    Effect.gen(function* () {
      const c = yield* config({})
      expect(c.siteUrl).toBe("https://app.example.com")
      expect(c.uriAllowList).toEqual([])
      expect(c.disableSignup).toBe(false)
      expect(c.mailerAutoconfirm).toBe(false)
      expect(c.smsAutoconfirm).toBe(false)
      expect(c.passwordPolicy.minLength).toBe(6)
      expect(c.passwordPolicy.requiredCharacters).toEqual([])
      expect(c.external).toEqual({
        email: true,
        phone: false,
        anonymousUsers: false,
        flowStateExpiry: Duration.seconds(300)
      })
      expect(Option.isNone(c.rateLimit.header)).toBe(true)
      expect(c.rateLimit.tokenRefresh).toEqual({ max: 150, window: Duration.minutes(5) })
      expect(c.rateLimit.anonymousUsers).toEqual({ max: 30, window: Duration.hours(1) })
      expect(c.security).toEqual({
        refreshTokenRotationEnabled: true,
        refreshTokenReuseInterval: Duration.seconds(10),
        updatePasswordRequireReauthentication: false,
        updatePasswordRequireCurrentPassword: false,
        manualLinkingEnabled: false,
        svcForwardedForEnabled: false,
        sbForwardedForEnabled: false
      })
      expect(c.api).toEqual({ host: "0.0.0.0", port: 8081, externalUrl: "https://auth.example.com" })
      expect(Option.isNone(c.jwt.secret)).toBe(true)
      expect(c.jwt.keys).toEqual([])
      expect(Option.isNone(c.jwt.validMethods)).toBe(true)
      expect(Option.isNone(c.jwt.issuer)).toBe(true)
      expect(c.jwt.adminRoles).toEqual(["service_role", "supabase_admin"])
      expect(c.jwt.expSeconds).toBe(3600)
      expect(c.jwt.aud).toBe("authenticated")
      expect(c.db).toEqual({
        url: Option.none(),
        urlVariable: "AUTHSVC_DB_DATABASE_URL",
        dataDir: ".latchkey/auth",
        namespace: "",
        maxPoolSize: Option.none(),
        connMaxIdleTime: Option.none(),
        preparedStatements: true
      })
      expect(c.telemetry.logLevel).toBe(LogLevel.Info)
      expect(c.telemetry.tracing).toBe(false)
    })
  )

  it.effect("requires SITE_URL and API_EXTERNAL_URL, one line each", () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(
        Effect.withConfigProvider(AuthConfig.server, AuthEnvironment.provider(new Map()))
      )
      expect(Either.mapLeft(result, ConfigReport.lines)).toEqual(
        Either.left([
          "AUTHSVC_SITE_URL: is required but not set",
          "AUTHSVC_API_EXTERNAL_URL: is required but not set"
        ])
      )
    })
  )

  it.effect("takes absolute URLs for SITE_URL and API_EXTERNAL_URL, without a trailing slash", () =>
    Effect.gen(function* () {
      const c = yield* config({
        AUTHSVC_SITE_URL: "http://localhost:3000/",
        AUTHSVC_API_EXTERNAL_URL: "https://project.example.com/auth/v1/"
      })
      expect(c.siteUrl).toBe("http://localhost:3000")
      expect(c.api.externalUrl).toBe("https://project.example.com/auth/v1")
      // A mobile app's own scheme is a site URL to Supabase Auth, which reads it as text.
      expect((yield* config({ AUTHSVC_SITE_URL: "com.example.app://callback" })).siteUrl).toBe(
        "com.example.app://callback"
      )
      expect(
        yield* report({ AUTHSVC_SITE_URL: "app.example.com", AUTHSVC_API_EXTERNAL_URL: "/auth" })
      ).toEqual([
        "AUTHSVC_SITE_URL: expected an absolute URL, e.g. https://example.com",
        "AUTHSVC_API_EXTERNAL_URL: expected an absolute http or https URL"
      ])
      expect(yield* report({ AUTHSVC_API_EXTERNAL_URL: "https://user:hunter2@auth.example.com" })).toEqual([
        "AUTHSVC_API_EXTERNAL_URL: expected an absolute http or https URL without credentials"
      ])
    })
  )

  describe("booleans, as Go's strconv.ParseBool reads them", () => {
    it.effect("accepts 1, t, T, TRUE, true, True and 0, f, F, FALSE, false, False", () =>
      Effect.gen(function* () {
        for (const spelling of ["1", "t", "T", "TRUE", "true", "True"]) {
          expect((yield* config({ AUTHSVC_DISABLE_SIGNUP: spelling })).disableSignup).toBe(true)
        }
        for (const spelling of ["0", "f", "F", "FALSE", "false", "False"]) {
          const c = yield* config({ AUTHSVC_EXTERNAL_EMAIL_ENABLED: spelling })
          expect(c.external.email).toBe(false)
        }
      })
    )

    it.effect("reads every boolean of the service", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_MAILER_AUTOCONFIRM: "true",
          AUTHSVC_SMS_AUTOCONFIRM: "1",
          AUTHSVC_EXTERNAL_PHONE_ENABLED: "t",
          AUTHSVC_EXTERNAL_ANONYMOUS_USERS_ENABLED: "TRUE",
          AUTHSVC_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: "false",
          AUTHSVC_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "True",
          AUTHSVC_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: "true",
          AUTHSVC_SECURITY_MANUAL_LINKING_ENABLED: "true",
          AUTHSVC_SECURITY_SVC_FORWARDED_FOR_ENABLED: "true",
          AUTHSVC_SECURITY_SB_FORWARDED_FOR_ENABLED: "1"
        })
        expect([c.mailerAutoconfirm, c.smsAutoconfirm, c.external.phone, c.external.anonymousUsers]).toEqual([
          true,
          true,
          true,
          true
        ])
        expect(c.security.refreshTokenRotationEnabled).toBe(false)
        expect(c.security.updatePasswordRequireReauthentication).toBe(true)
        expect(c.security.updatePasswordRequireCurrentPassword).toBe(true)
        expect(c.security.manualLinkingEnabled).toBe(true)
        expect(c.security.svcForwardedForEnabled).toBe(true)
        expect(c.security.sbForwardedForEnabled).toBe(true)
      })
    )

    it.effect("refuses other spellings, naming the variable", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_DISABLE_SIGNUP: "yes", AUTHSVC_MAILER_AUTOCONFIRM: "on" })).toEqual([
          "AUTHSVC_DISABLE_SIGNUP: expected true or false (also 1/0, t/f)",
          "AUTHSVC_MAILER_AUTOCONFIRM: expected true or false (also 1/0, t/f)"
        ])
      })
    )
  })

  describe("the reuse interval: seconds, or a Go duration", () => {
    it.effect("reads a bare integer as seconds, as Supabase Auth's int setting", () =>
      Effect.gen(function* () {
        for (const [value, seconds] of [
          ["0", 0],
          ["10", 10],
          ["3600", 3600]
        ] as const) {
          const c = yield* config({ AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: value })
          expect(Duration.toSeconds(c.security.refreshTokenReuseInterval)).toBe(seconds)
        }
      })
    )

    it.effect("reads Go durations: 10s, 1h30m, 1.5h, 300ms, 2m0.5s, +5s", () =>
      Effect.gen(function* () {
        for (const [value, millis] of [
          ["10s", 10_000],
          // Go's parser takes a plus sign, which changes nothing.
          ["+5s", 5_000],
          ["+5", 5_000],
          ["1h30m", 5_400_000],
          ["1.5h", 5_400_000],
          ["300ms", 300],
          ["2m0.5s", 120_500],
          ["0s", 0]
        ] as const) {
          const c = yield* config({ AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: value })
          expect(Duration.toMillis(c.security.refreshTokenReuseInterval)).toBe(millis)
        }
      })
    )

    it.effect("refuses anything else on one line", () =>
      Effect.gen(function* () {
        for (const value of ["10 seconds", "-5s", "++5s", "+-5s", "+none", "-5", "none", "1d", "s", "1.5"]) {
          expect(yield* report({ AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: value })).toEqual([
            "AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
          ])
        }
      })
    )
  })

  describe("session limits (SESSIONS_TIMEBOX, _INACTIVITY_TIMEOUT, _ALLOW_LOW_AAL)", () => {
    it.effect("are unset by default: sessions last until they end", () =>
      Effect.gen(function* () {
        expect((yield* config({})).sessions).toEqual(Session.unlimited)
      })
    )

    it.effect("read Go durations as the Supabase CLI writes them, or seconds", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_SESSIONS_TIMEBOX: "24h0m0s",
          AUTHSVC_SESSIONS_INACTIVITY_TIMEOUT: "8h",
          AUTHSVC_SESSIONS_ALLOW_LOW_AAL: "600"
        })
        const seconds = (limit: Option.Option<Duration.Duration>) => Option.map(limit, Duration.toSeconds)
        expect(seconds(c.sessions.timebox)).toEqual(Option.some(24 * 3600))
        expect(seconds(c.sessions.inactivityTimeout)).toEqual(Option.some(8 * 3600))
        expect(seconds(c.sessions.allowLowAal)).toEqual(Option.some(600))
      })
    )

    it.effect("read SESSIONS_SINGLE_PER_USER as a boolean, off by default", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_SESSIONS_SINGLE_PER_USER: "true" })).sessions.singlePerUser).toBe(
          true
        )
        expect(yield* report({ AUTHSVC_SESSIONS_SINGLE_PER_USER: "yes" })).toHaveLength(1)
      })
    )

    it.effect("stop the start at zero, as Supabase Auth does, and at anything not a duration", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_SESSIONS_TIMEBOX: "0s" })).toEqual([
          "AUTHSVC_SESSIONS_TIMEBOX: expected a duration more than 0, e.g. 24h or 30m"
        ])
        expect(yield* report({ AUTHSVC_SESSIONS_INACTIVITY_TIMEOUT: "0" })).toEqual([
          "AUTHSVC_SESSIONS_INACTIVITY_TIMEOUT: expected a duration more than 0, e.g. 24h or 30m"
        ])
        expect(yield* report({ AUTHSVC_SESSIONS_ALLOW_LOW_AAL: "a day" })).toEqual([
          "AUTHSVC_SESSIONS_ALLOW_LOW_AAL: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
        ])
      })
    )
  })

  describe("the reaper's interval", () => {
    it.effect("is an hour unless REAPER_INTERVAL says otherwise, in seconds or a Go duration", () =>
      Effect.gen(function* () {
        expect(Duration.toMillis((yield* config({})).reaperInterval)).toBe(3_600_000)
        expect(Duration.toMillis((yield* config({ AUTHSVC_REAPER_INTERVAL: "90" })).reaperInterval)).toBe(
          90_000
        )
        expect(Duration.toMillis((yield* config({ AUTHSVC_REAPER_INTERVAL: "15m" })).reaperInterval)).toBe(
          900_000
        )
      })
    )

    it.effect("stops the start at zero or at anything not a duration", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_REAPER_INTERVAL: "0s" })).toEqual([
          "AUTHSVC_REAPER_INTERVAL: expected a duration more than 0, e.g. 24h or 30m"
        ])
        expect(yield* report({ AUTHSVC_REAPER_INTERVAL: "hourly" })).toEqual([
          "AUTHSVC_REAPER_INTERVAL: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
        ])
      })
    )
  })

  describe("the flow states' lifetime (EXTERNAL_FLOW_STATE_EXPIRY_DURATION)", () => {
    it.effect("is a Go duration (or seconds), 300 s unless set", () =>
      Effect.gen(function* () {
        const read = (value: string) =>
          Effect.map(config({ AUTHSVC_EXTERNAL_FLOW_STATE_EXPIRY_DURATION: value }), (c) =>
            Duration.toMillis(c.external.flowStateExpiry)
          )
        expect(yield* read("300s")).toBe(300_000)
        expect(yield* read("1h30m")).toBe(5_400_000)
        expect(yield* read("900")).toBe(900_000)
        // Supabase Auth starts with a shorter one and raises it to 300 s; so does FlowState.lifetime.
        expect(yield* read("30s")).toBe(30_000)
        expect(yield* read("0")).toBe(0)
      })
    )

    it.effect("stops the start at anything not a duration, naming the variable", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_EXTERNAL_FLOW_STATE_EXPIRY_DURATION: "five minutes" })).toEqual([
          "AUTHSVC_EXTERNAL_FLOW_STATE_EXPIRY_DURATION: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
        ])
      })
    )
  })

  describe("whole numbers", () => {
    it.effect("reads JWT_EXP in seconds; 0 is Supabase Auth's unset and means 3600", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_JWT_EXP: "7200" })).jwt.expSeconds).toBe(7200)
        expect((yield* config({ AUTHSVC_JWT_EXP: "0" })).jwt.expSeconds).toBe(3600)
      })
    )

    it.effect("builds the password policy with PasswordPolicy.make, which raises a minimum under 6", () =>
      Effect.gen(function* () {
        const strict = yield* config({
          AUTHSVC_PASSWORD_MIN_LENGTH: "12",
          AUTHSVC_PASSWORD_REQUIRED_CHARACTERS: "abcdefghijklmnopqrstuvwxyz:0123456789:\\:"
        })
        expect(strict.passwordPolicy.minLength).toBe(12)
        expect(strict.passwordPolicy.requiredCharacters).toEqual([
          "abcdefghijklmnopqrstuvwxyz",
          "0123456789",
          ":"
        ])
        expect((yield* config({ AUTHSVC_PASSWORD_MIN_LENGTH: "4" })).passwordPolicy.minLength).toBe(6)
      })
    )

    it.effect("reads DB_MAX_POOL_SIZE, 0 leaving the pool at the driver's default", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_DB_MAX_POOL_SIZE: "25" })).db.maxPoolSize).toEqual(Option.some(25))
        expect((yield* config({ AUTHSVC_DB_MAX_POOL_SIZE: "0" })).db.maxPoolSize).toEqual(Option.none())
      })
    )

    it.effect("reads them as Go does: other bases, underscores, a plus sign", () =>
      Effect.gen(function* () {
        for (const [value, seconds] of [
          ["0xE10", 3600],
          ["3_600", 3600],
          ["+3600", 3600],
          ["0o7020", 3600],
          ["0b111000010000", 3600]
        ] as const) {
          expect((yield* config({ AUTHSVC_JWT_EXP: value })).jwt.expSeconds).toBe(seconds)
        }
        const reused = yield* config({ AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "0x10" })
        expect(Duration.toSeconds(reused.security.refreshTokenReuseInterval)).toBe(16)
        expect((yield* config({ AUTHSVC_SMTP_HOST: "mail", AUTHSVC_SMTP_PORT: "0x24b" })).smtp).toEqual(
          Option.some(expect.objectContaining({ port: 587 }))
        )
        expect(yield* warningsOf({ AUTHSVC_JWT_EXP: "0xE10", AUTHSVC_DB_MAX_POOL_SIZE: "1_0" })).toEqual([])
      })
    )

    it.effect("read a leading 0 as octal, as Go does, and say so", () =>
      Effect.gen(function* () {
        const env = {
          AUTHSVC_JWT_EXP: "07020",
          AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "010",
          AUTHSVC_DB_MAX_POOL_SIZE: "0",
          // Octal too, but the same number read either way: nothing to say.
          AUTHSVC_MAILER_OTP_LENGTH: "007"
        }
        const c = yield* config(env)
        expect(c.jwt.expSeconds).toBe(3600)
        expect(Duration.toSeconds(c.security.refreshTokenReuseInterval)).toBe(8)
        expect(c.mailer.otpLength).toBe(7)
        expect(yield* warningsOf(env)).toEqual([
          "AUTHSVC_JWT_EXP is 07020, read as 3600: a leading 0 makes a number octal, as in Supabase Auth; write 3600 if that is meant",
          "AUTHSVC_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL is 010, read as 8: a leading 0 makes a number octal, as in Supabase Auth; write 8 if that is meant"
        ])
      })
    )

    it.effect("refuse fractions, words, what Go refuses, and a negative count", () =>
      Effect.gen(function* () {
        for (const value of ["-1", "1.5", "ten", "1e3", "08", "1__0", "0x", " - 1"]) {
          expect(yield* report({ AUTHSVC_JWT_EXP: value })).toEqual([
            "AUTHSVC_JWT_EXP: expected a whole number, 0 or more"
          ])
        }
        for (const value of ["1.5", "ten", "1e3", "08"]) {
          expect(
            yield* report({ AUTHSVC_PASSWORD_MIN_LENGTH: value, AUTHSVC_DB_MAX_POOL_SIZE: value })
          ).toEqual([
            "AUTHSVC_PASSWORD_MIN_LENGTH: expected a whole number",
            "AUTHSVC_DB_MAX_POOL_SIZE: expected a whole number"
          ])
        }
      })
    )

    it.effect("take a negative password minimum or pool size as Supabase Auth does: 6, no limit", () =>
      Effect.gen(function* () {
        const c = yield* config({ AUTHSVC_PASSWORD_MIN_LENGTH: "-1", AUTHSVC_DB_MAX_POOL_SIZE: "-1" })
        expect(c.passwordPolicy.minLength).toBe(6)
        expect(c.db.maxPoolSize).toEqual(Option.none())
      })
    )
  })

  describe("lists", () => {
    it.effect("splits on commas, trims entries and drops empty ones", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_URI_ALLOW_LIST: " https://a.example.com/** , ,http://localhost:3000/*,",
          AUTHSVC_JWT_ADMIN_ROLES: "service_role, platform_admin"
        })
        expect(c.uriAllowList).toEqual(["https://a.example.com/**", "http://localhost:3000/*"])
        expect(c.jwt.adminRoles).toEqual(["service_role", "platform_admin"])
      })
    )

    it.effect("keeps Supabase Auth's admin roles when JWT_ADMIN_ROLES holds only separators", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_JWT_ADMIN_ROLES: " , " })).jwt.adminRoles).toEqual([
          "service_role",
          "supabase_admin"
        ])
      })
    )
  })

  describe("rate limits", () => {
    it.effect("reads requests per window, keeping the whole part as Supabase Auth's burst does", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "300",
          AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "10.7",
          AUTHSVC_RATE_LIMIT_HEADER: "X-Real-IP"
        })
        expect(c.rateLimit.tokenRefresh).toEqual({ max: 300, window: Duration.minutes(5) })
        expect(c.rateLimit.anonymousUsers).toEqual({ max: 10, window: Duration.hours(1) })
        expect(c.rateLimit.header).toEqual(Option.some("X-Real-IP"))
      })
    )

    it.effect("reads counts as Go's ParseFloat does: exponents, underscores, hexadecimal floats", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1.5e2",
          AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "1_000",
          AUTHSVC_RATE_LIMIT_OTP: "0x1p4",
          // ParseFloat has no octal: a leading 0 is a decimal's, and no warning.
          AUTHSVC_RATE_LIMIT_VERIFY: "010",
          AUTHSVC_RATE_LIMIT_EMAIL_SENT: "010/1m",
          AUTHSVC_MFA_MAX_ENROLLED_FACTORS: "2e1"
        })
        expect(c.rateLimit.tokenRefresh.max).toBe(150)
        expect(c.rateLimit.anonymousUsers.max).toBe(1000)
        expect(c.rateLimit.otp.max).toBe(16)
        expect(c.rateLimit.verify.max).toBe(10)
        expect(c.rateLimit.emailSent.max).toBe(10)
        expect(Duration.toMillis(c.rateLimit.emailSent.window)).toBe(60_000)
        expect(c.mfa.limits.maxEnrolled).toBe(20)
        expect(yield* warningsOf({ AUTHSVC_RATE_LIMIT_VERIFY: "010" })).toEqual([])
        // Go takes these two as well; no count can be infinite or not a number.
        for (const value of ["inf", "NaN", "1e400"]) {
          expect(yield* report({ AUTHSVC_RATE_LIMIT_OTP: value })).toEqual([
            "AUTHSVC_RATE_LIMIT_OTP: expected a number of requests per 5 minutes, e.g. 30"
          ])
        }
      })
    )

    it.effect("refuses what is not a count", () =>
      Effect.gen(function* () {
        expect(
          yield* report({
            AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "150/5m",
            AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: "-1",
            AUTHSVC_RATE_LIMIT_HEADER: "X Real IP"
          })
        ).toEqual([
          "AUTHSVC_RATE_LIMIT_HEADER: expected an HTTP header name, e.g. X-Request-Id",
          "AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: expected a number of requests per 5 minutes, e.g. 150",
          "AUTHSVC_RATE_LIMIT_ANONYMOUS_USERS: expected a number of requests per hour, e.g. 30"
        ])
      })
    )

    it.effect("reads the message caps as Supabase Auth's Rate: events per hour, or over a Go duration", () =>
      Effect.gen(function* () {
        const defaults = (yield* config({})).rateLimit
        expect(defaults.emailSent).toEqual({ max: 30, window: Duration.hours(1) })
        expect(defaults.smsSent).toEqual({ max: 30, window: Duration.hours(1) })
        expect(defaults.otp).toEqual({ max: 30, window: Duration.minutes(5) })
        expect(defaults.verify).toEqual({ max: 30, window: Duration.minutes(5) })
        const c = yield* config({
          AUTHSVC_RATE_LIMIT_EMAIL_SENT: "10/1m",
          AUTHSVC_RATE_LIMIT_SMS_SENT: "4.5",
          AUTHSVC_RATE_LIMIT_OTP: "5",
          AUTHSVC_RATE_LIMIT_VERIFY: "7"
        })
        expect(c.rateLimit.emailSent.max).toBe(10)
        expect(Duration.toMillis(c.rateLimit.emailSent.window)).toBe(60_000)
        expect(c.rateLimit.smsSent).toEqual({ max: 4, window: Duration.hours(1) })
        expect(c.rateLimit.otp).toEqual({ max: 5, window: Duration.minutes(5) })
        expect(c.rateLimit.verify).toEqual({ max: 7, window: Duration.minutes(5) })
        const expected = (example: number) =>
          `expected a number of events per hour, or events over a Go duration, e.g. ${example} or 10/1m`
        expect(
          yield* report({ AUTHSVC_RATE_LIMIT_EMAIL_SENT: "10/0s", AUTHSVC_RATE_LIMIT_SMS_SENT: "ten" })
        ).toEqual([
          `AUTHSVC_RATE_LIMIT_EMAIL_SENT: ${expected(30)}`,
          `AUTHSVC_RATE_LIMIT_SMS_SENT: ${expected(30)}`
        ])
        expect(yield* report({ AUTHSVC_RATE_LIMIT_EMAIL_SENT: "1.5/1h" })).toEqual([
          `AUTHSVC_RATE_LIMIT_EMAIL_SENT: ${expected(30)}`
        ])
      })
    )
    it.effect("reads the factor and passkey limits per client address, as Supabase Auth's float64", () =>
      Effect.gen(function* () {
        const defaults = (yield* config({})).rateLimit
        expect(defaults.mfaChallengeAndVerify).toEqual({ max: 15, window: Duration.minutes(1) })
        expect(defaults.passkey).toEqual({ max: 30, window: Duration.minutes(5) })
        const c = yield* config({
          AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "20.5",
          AUTHSVC_RATE_LIMIT_PASSKEY: "12"
        })
        expect(c.rateLimit.mfaChallengeAndVerify).toEqual({ max: 20, window: Duration.minutes(1) })
        expect(c.rateLimit.passkey).toEqual({ max: 12, window: Duration.minutes(5) })
        expect(
          yield* report({
            AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "15/1m",
            AUTHSVC_RATE_LIMIT_PASSKEY: "-1"
          })
        ).toEqual([
          "AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: expected a number of requests per minute, e.g. 15",
          "AUTHSVC_RATE_LIMIT_PASSKEY: expected a number of requests per 5 minutes, e.g. 30"
        ])
      })
    )
  })

  describe("mail templates", () => {
    it.effect("takes http and https URLs, and paths under SITE_URL, as Supabase Auth does", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_MAILER_TEMPLATES_MAGIC_LINK: "https://templates.example.com/magic.html",
          // The Supabase CLI's: a sidecar on its own network, over plain http.
          AUTHSVC_MAILER_TEMPLATES_RECOVERY: "http://supabase_kong_app:8000/email/recovery.html",
          AUTHSVC_MAILER_TEMPLATES_INVITE: "/templates/invite.html"
        })
        expect(c.mailer.templates).toEqual({
          magic_link: "https://templates.example.com/magic.html",
          recovery: "http://supabase_kong_app:8000/email/recovery.html",
          invite: "/templates/invite.html"
        })
        expect(AuthConfig.resolveTemplate(c.siteUrl, "/templates/invite.html")).toBe(
          "https://app.example.com/templates/invite.html"
        )
        expect(
          AuthConfig.resolveTemplate(c.siteUrl, "http://supabase_kong_app:8000/email/recovery.html")
        ).toBe("http://supabase_kong_app:8000/email/recovery.html")
      })
    )
  })

  describe("mail links (MAILER_URLPATHS_*)", () => {
    it.effect("take a path or a whole URL, resolved as Supabase Auth resolves them", () =>
      Effect.gen(function* () {
        const c = yield* config({
          // The Supabase CLI's.
          AUTHSVC_MAILER_URLPATHS_CONFIRMATION: "http://127.0.0.1:54321/auth/v1/verify",
          // Supabase's self-hosting compose file's.
          AUTHSVC_MAILER_URLPATHS_RECOVERY: "/auth/v1/verify",
          AUTHSVC_API_EXTERNAL_URL: "https://project.example.com/auth/v1"
        })
        expect(c.mailer.urlPaths).toEqual({
          invite: Option.none(),
          confirmation: Option.some("http://127.0.0.1:54321/auth/v1/verify"),
          recovery: Option.some("/auth/v1/verify"),
          emailChange: Option.none()
        })
        const link = (path: Option.Option<string>) => AuthConfig.resolveLink(c.api.externalUrl, path)
        expect(link(c.mailer.urlPaths.confirmation)).toBe("http://127.0.0.1:54321/auth/v1/verify")
        // A path replaces the external URL's path, as Go's ResolveReference does.
        expect(link(c.mailer.urlPaths.recovery)).toBe("https://project.example.com/auth/v1/verify")
        expect(link(Option.some("/verify"))).toBe("https://project.example.com/verify")
        // Unset, the link is /verify under the external URL, its path included.
        expect(link(c.mailer.urlPaths.invite)).toBe("https://project.example.com/auth/v1/verify")
        expect(yield* report({ AUTHSVC_MAILER_URLPATHS_INVITE: "http://[::1" })).toEqual([
          "AUTHSVC_MAILER_URLPATHS_INVITE: expected a path such as /verify, or a URL"
        ])
      })
    )
  })

  describe("code lengths", () => {
    it.effect("read a length outside 6 to 10 as 6, as Supabase Auth does, with a warning", () =>
      Effect.gen(function* () {
        const env = { AUTHSVC_MAILER_OTP_LENGTH: "4", AUTHSVC_SMS_OTP_LENGTH: "12" }
        const c = yield* config(env)
        expect([c.mailer.otpLength, c.sms.otpLength]).toEqual([6, 6])
        expect(yield* warningsOf(env)).toEqual([
          "AUTHSVC_MAILER_OTP_LENGTH is 4: codes have 6 to 10 digits, so they have 6, as Supabase Auth makes them",
          "AUTHSVC_SMS_OTP_LENGTH is 12: codes have 6 to 10 digits, so they have 6, as Supabase Auth makes them"
        ])
        const kept = yield* config({ AUTHSVC_MAILER_OTP_LENGTH: "8", AUTHSVC_SMS_OTP_LENGTH: "10" })
        expect([kept.mailer.otpLength, kept.sms.otpLength]).toEqual([8, 10])
        expect(yield* report({ AUTHSVC_SMS_OTP_LENGTH: "six" })).toEqual([
          "AUTHSVC_SMS_OTP_LENGTH: expected a whole number"
        ])
        // Read as Go reads an int, a negative length included (Supabase Auth's 6 too).
        const negative = { AUTHSVC_MAILER_OTP_LENGTH: "-8", AUTHSVC_SMS_OTP_LENGTH: "0x8" }
        const read = yield* config(negative)
        expect([read.mailer.otpLength, read.sms.otpLength]).toEqual([6, 8])
        expect(yield* warningsOf(negative)).toEqual([
          "AUTHSVC_MAILER_OTP_LENGTH is -8: codes have 6 to 10 digits, so they have 6, as Supabase Auth makes them"
        ])
      })
    )

    it.effect("warn of a texted factor code's length outside 6 to 10 too", () =>
      Effect.gen(function* () {
        const env = { AUTHSVC_MFA_PHONE_OTP_LENGTH: "5" }
        expect((yield* config(env)).mfa.phone.otpLength).toBe(6)
        expect(yield* warningsOf(env)).toEqual([
          "AUTHSVC_MFA_PHONE_OTP_LENGTH is 5: codes have 6 to 10 digits, so they have 6, as Supabase Auth makes them"
        ])
        expect(yield* report({ AUTHSVC_MFA_PHONE_OTP_LENGTH: "six" })).toEqual([
          "AUTHSVC_MFA_PHONE_OTP_LENGTH: expected a whole number"
        ])
      })
    )
  })

  describe("secrets at rest (SECURITY_DB_ENCRYPTION_*)", () => {
    const key = Buffer.alloc(32, 1).toString("base64url")
    const older = Buffer.alloc(32, 2).toString("base64url")

    it.effect("are kept as they are by default; with ENCRYPT on, sealed under the named key", () =>
      Effect.gen(function* () {
        const off = yield* config({})
        expect([Option.isNone(off.atRestKeys.sealing), off.atRestKeys.opening.size]).toEqual([true, 0])
        const on = yield* config({
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT: "true",
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-2",
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: key,
          AUTHSVC_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `key-1:${older}`
        })
        expect(Option.map(on.atRestKeys.sealing, (sealing) => sealing.keyId)).toEqual(Option.some("key-2"))
        // The older key opens what it sealed; the sealing key opens too, listed or not.
        expect([...on.atRestKeys.opening.keys()].sort()).toEqual(["key-1", "key-2"])
        // Decryption keys alone: a Supabase project's sealed secrets are read, new ones kept as they are.
        const readOnly = yield* config({
          AUTHSVC_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `key-1:${older}, key-2:${key}`
        })
        expect([Option.isNone(readOnly.atRestKeys.sealing), readOnly.atRestKeys.opening.size]).toEqual([
          true,
          2
        ])
      })
    )

    it.effect("refuse a missing or malformed key on one line each, never quoting a key", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT: "true" })).toEqual([
          "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: is required with AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT",
          "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: is required with AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT"
        ])
        const short = Buffer.alloc(16, 1).toString("base64url")
        const lines = yield* report({
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPT: "true",
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-2",
          AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: short,
          AUTHSVC_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `key-1:${short}`
        })
        expect(lines).toEqual([
          "AUTHSVC_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: expected id:key pairs separated by commas, each key 256 bits in unpadded base64url (not so: key-1)",
          "AUTHSVC_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: expected a 256-bit key in unpadded base64url (43 characters)"
        ])
        expect(lines.join("\n")).not.toContain(short)
      })
    )
  })

  describe("outbound calls", () => {
    it.effect("reach no private address by default; the list reads IPv4 and IPv6 addresses and ranges", () =>
      Effect.gen(function* () {
        expect((yield* config({})).outbound.allowedPrivateAddresses.ranges).toEqual([])
        const c = yield* config({
          AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: " 10.0.0.0/8, 192.168.1.20 ,fd00::/8,,::1"
        })
        expect(c.outbound.allowedPrivateAddresses.ranges).toEqual([
          "10.0.0.0/8",
          "192.168.1.20/32",
          "fd00::/8",
          "::1/128"
        ])
        expect(c.outbound.allowedPrivateAddresses.variable).toBe("AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES")
      })
    )

    it.effect("a bad entry stops the start with one line naming the variable and what is expected", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "10.0.0.0/8,keycloak" })).toEqual([
          "AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: expected comma-separated IP addresses and CIDR ranges, e.g. 10.0.0.0/8,fd00::/8,127.0.0.1: keycloak is neither"
        ])
      })
    )
  })

  describe("external providers", () => {
    it.effect(
      "an enabled provider without its client id, secret or realm URL starts, unusable, with a warning",
      () =>
        Effect.gen(function* () {
          const unusable = (env: Record<string, string>) =>
            Effect.map(config(env), (c) =>
              c.externalProviders.map((provider) => [provider.name, provider.unusable])
            )
          expect(yield* unusable({ AUTHSVC_EXTERNAL_GITHUB_ENABLED: "true" })).toEqual([
            [
              "github",
              Option.some({
                variable: "AUTHSVC_EXTERNAL_GITHUB_CLIENT_ID",
                reason: "missing OAuth client ID"
              })
            ]
          ])
          // The Supabase CLI passes a secret it could not resolve as an empty value.
          const google = {
            AUTHSVC_EXTERNAL_GOOGLE_ENABLED: "true",
            AUTHSVC_EXTERNAL_GOOGLE_CLIENT_ID: "web-id"
          }
          expect(yield* unusable(google)).toEqual([
            [
              "google",
              Option.some({ variable: "AUTHSVC_EXTERNAL_GOOGLE_SECRET", reason: "missing OAuth secret" })
            ]
          ])
          expect(yield* warningsOf(google)).toEqual([
            `AUTHSVC_EXTERNAL_GOOGLE_SECRET is unset: sign-ins through google's page answer "Unsupported provider: missing OAuth secret" (sign-ins with its ID tokens work)`
          ])
          // Supabase Auth's own test configuration (hack/test.env) writes `testsecret`: it starts.
          const apple = {
            AUTHSVC_EXTERNAL_APPLE_ENABLED: "true",
            AUTHSVC_EXTERNAL_APPLE_CLIENT_ID: "testclientid",
            AUTHSVC_EXTERNAL_APPLE_SECRET: "testsecret"
          }
          expect(yield* unusable(apple)).toEqual([["apple", Option.none()]])
          expect(yield* warningsOf(apple)).toEqual([
            "AUTHSVC_EXTERNAL_APPLE_SECRET is not a client secret JWT made for AUTHSVC_EXTERNAL_APPLE_CLIENT_ID (ES256, signed with the team's key, its sub the client id): Apple refuses every sign-in through its page (sign-ins with its ID tokens work)"
          ])
          const keycloak = {
            AUTHSVC_EXTERNAL_KEYCLOAK_ENABLED: "true",
            AUTHSVC_EXTERNAL_KEYCLOAK_CLIENT_ID: "app",
            AUTHSVC_EXTERNAL_KEYCLOAK_SECRET: "secret"
          }
          expect(yield* unusable(keycloak)).toEqual([
            [
              "keycloak",
              Option.some({
                variable: "AUTHSVC_EXTERNAL_KEYCLOAK_URL",
                reason: "unable to find URL for the Keycloak provider"
              })
            ]
          ])
          // A disabled provider's settings are not read, as in Supabase Auth; an enabled one's are.
          expect(
            yield* unusable({
              AUTHSVC_EXTERNAL_GITLAB_ENABLED: "false",
              AUTHSVC_EXTERNAL_GITLAB_URL: "ftp://gitlab.example.com"
            })
          ).toEqual([])
          expect(
            yield* report({
              AUTHSVC_EXTERNAL_GITLAB_ENABLED: "true",
              AUTHSVC_EXTERNAL_GITLAB_URL: "ftp://gitlab.example.com"
            })
          ).toEqual(["AUTHSVC_EXTERNAL_GITLAB_URL: expected an absolute http or https URL"])
          const c = yield* config({
            AUTHSVC_EXTERNAL_GITHUB_ENABLED: "true",
            AUTHSVC_EXTERNAL_GITHUB_CLIENT_ID: " app-id ",
            AUTHSVC_EXTERNAL_GITHUB_SECRET: "the-secret",
            AUTHSVC_EXTERNAL_GOOGLE_ENABLED: "false",
            // A comma list, as Supabase Auth reads it: the first id for the web flow, all for ID tokens.
            AUTHSVC_EXTERNAL_APPLE_ENABLED: "true",
            AUTHSVC_EXTERNAL_APPLE_CLIENT_ID: "com.example.web, com.example.ios,",
            AUTHSVC_EXTERNAL_APPLE_SECRET: "the-apple-secret"
          })
          expect(
            c.externalProviders.map((provider) => [provider.name, provider.clientId, provider.clientIds])
          ).toEqual([
            ["apple", "com.example.web", ["com.example.web", "com.example.ios"]],
            ["github", "app-id", ["app-id"]]
          ])
          expect(c.externalProviders.map((provider) => provider.unusable)).toEqual([
            Option.none(),
            Option.none()
          ])
          expect(String(c.externalProviders[1]?.secret)).not.toContain("the-secret")
        })
    )
  })

  describe("JWT", () => {
    const secret = "a-secret-of-at-least-thirty-two-characters"

    it.effect(
      "keeps JWT_SECRET redacted; takes a short one, as Supabase Auth does, warning without echoing it",
      () =>
        Effect.gen(function* () {
          const c = yield* config({ AUTHSVC_JWT_SECRET: secret })
          expect(c.jwt.secret.pipe(Option.map(Redacted.value))).toEqual(Option.some(secret))
          expect(String(c.jwt.secret)).not.toContain(secret)
          expect(yield* warningsOf({ AUTHSVC_JWT_SECRET: secret })).toEqual([])
          const lines = yield* warningsOf({ AUTHSVC_JWT_SECRET: "hunter2" })
          expect(lines).toEqual([
            "AUTHSVC_JWT_SECRET has 7 characters: anyone holding one token can try to guess a key this short offline, then sign tokens of any user; use at least 32 random characters"
          ])
          expect(lines.join("\n")).not.toContain("hunter2")
        })
    )

    it.effect("reads the issuer, audience and valid methods", () =>
      Effect.gen(function* () {
        const c = yield* config({
          AUTHSVC_JWT_ISSUER: "https://auth.example.com/auth/v1",
          AUTHSVC_JWT_AUD: "api",
          AUTHSVC_JWT_VALID_METHODS: "RS256, HS256,EdDSA,ES256"
        })
        expect(c.jwt.issuer).toEqual(Option.some("https://auth.example.com/auth/v1"))
        expect(c.jwt.aud).toBe("api")
        expect(c.jwt.validMethods).toEqual(Option.some(["RS256", "HS256", "EdDSA", "ES256"]))
      })
    )

    it.effect("takes methods it does not verify with in JWT_VALID_METHODS, naming them in a warning", () =>
      Effect.gen(function* () {
        const env = { AUTHSVC_JWT_VALID_METHODS: "RS256,PS256,none" }
        expect((yield* config(env)).jwt.validMethods).toEqual(Option.some(["RS256"]))
        expect(yield* warningsOf(env)).toEqual([
          "AUTHSVC_JWT_VALID_METHODS names PS256, none, which this service does not verify: tokens signed so are refused (403 bad_jwt); it verifies HS256, RS256, ES256, EdDSA, RS512, ES512"
        ])
        expect(yield* report({ AUTHSVC_JWT_VALID_METHODS: " , " })).toEqual([
          "AUTHSVC_JWT_VALID_METHODS: expected a comma-separated list of HS256, RS256, ES256, EdDSA, RS512, ES512"
        ])
      })
    )

    const signing = {
      kty: "EC",
      crv: "P-256",
      kid: "k1",
      alg: "ES256",
      key_ops: ["sign", "verify"],
      x: "x",
      y: "y",
      d: "d"
    }

    it.effect("reads JWT_KEYS, and warns of valid methods that leave out the signing key's algorithm", () =>
      Effect.gen(function* () {
        const keys = JSON.stringify([signing])
        const c = yield* config({ AUTHSVC_JWT_KEYS: keys })
        expect(c.jwt.keys.map((key) => [key.kid, key.alg, key.keyOps])).toEqual([
          ["k1", "ES256", ["sign", "verify"]]
        ])
        expect(yield* warningsOf({ AUTHSVC_JWT_KEYS: keys, AUTHSVC_JWT_VALID_METHODS: "RS256" })).toEqual([
          "AUTHSVC_JWT_VALID_METHODS leaves out ES256, the algorithm of the signing key in AUTHSVC_JWT_KEYS: every token this service issues is refused (403 bad_jwt) until the list includes it"
        ])
      })
    )

    it.effect("reports a wrong JWT_KEYS on one line without quoting it", () =>
      Effect.gen(function* () {
        const lines = yield* report({ AUTHSVC_JWT_KEYS: `[{"kty":"oct","k":"hunter2"` })
        expect(lines).toEqual([
          "AUTHSVC_JWT_KEYS: expected a JSON array of JWKs (the value is no valid JSON)"
        ])
      })
    )
  })

  describe("database", () => {
    it.effect("prefers AUTHSVC_DB_DATABASE_URL to DATABASE_URL, as Supabase Auth does", () =>
      Effect.gen(function* () {
        const both = yield* config({
          AUTHSVC_DB_DATABASE_URL: "postgres://auth@db/prefixed",
          DATABASE_URL: "postgres://auth@db/plain"
        })
        expect(both.db.url.pipe(Option.map(Redacted.value))).toEqual(
          Option.some("postgres://auth@db/prefixed")
        )
        const plain = yield* config({ DATABASE_URL: "postgresql://auth@db/plain" })
        expect(plain.db.url.pipe(Option.map(Redacted.value))).toEqual(
          Option.some("postgresql://auth@db/plain")
        )
        // The line that says the database cannot be reached names the variable the URL came from.
        expect(both.db.urlVariable).toBe("AUTHSVC_DB_DATABASE_URL")
        expect(plain.db.urlVariable).toBe("DATABASE_URL")
      })
    )

    it.effect("reports a wrong AUTHSVC_DB_DATABASE_URL rather than falling back to DATABASE_URL", () =>
      Effect.gen(function* () {
        expect(
          yield* report({
            AUTHSVC_DB_DATABASE_URL: "mysql://root:hunter2@db/x",
            DATABASE_URL: "postgres://db/x"
          })
        ).toEqual(["AUTHSVC_DB_DATABASE_URL: expected a postgres:// or postgresql:// URL"])
        expect(yield* report({ DATABASE_URL: "db:5432" })).toEqual([
          "DATABASE_URL: expected a postgres:// or postgresql:// URL"
        ])
      })
    )

    it.effect("takes DB_NAMESPACE as a table-name prefix Postgres reads unquoted", () =>
      Effect.gen(function* () {
        for (const namespace of ["auth_", "_", "tenant42_", "a".repeat(20)]) {
          expect((yield* config({ AUTHSVC_DB_NAMESPACE: namespace })).db.namespace).toBe(namespace)
        }
        for (const namespace of [
          "Auth",
          "1auth",
          "auth.",
          'auth"; drop table users; --',
          "a".repeat(21),
          "é"
        ]) {
          expect(yield* report({ AUTHSVC_DB_NAMESPACE: namespace })).toEqual([
            "AUTHSVC_DB_NAMESPACE: expected at most 20 of a-z, 0-9 and _, not starting with a digit"
          ])
        }
      })
    )

    it.effect(
      "reads Supabase Auth's DB_NAMESPACE=auth, the schema this service always uses, as no prefix",
      () =>
        Effect.gen(function* () {
          expect((yield* config({ AUTHSVC_DB_NAMESPACE: "auth" })).db.namespace).toBe("")
        })
    )

    it.effect("warns of a relying party no passkey or WebAuthn ceremony can pass", () =>
      Effect.gen(function* () {
        const party = {
          AUTHSVC_PASSKEY_ENABLED: "true",
          AUTHSVC_WEBAUTHN_RP_ID: "example.com",
          AUTHSVC_WEBAUTHN_RP_DISPLAY_NAME: "Example",
          AUTHSVC_WEBAUTHN_RP_ORIGINS: "https://app.example.com"
        }
        expect(yield* warningsOf(party)).toEqual([])
        expect(
          yield* warningsOf({
            ...party,
            AUTHSVC_WEBAUTHN_RP_ID: "https://example.com:443",
            AUTHSVC_WEBAUTHN_RP_ORIGINS: "https://app.example.com,app.example.com",
            AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: "0s"
          })
        ).toEqual([
          "AUTHSVC_WEBAUTHN_RP_ID is https://example.com:443: a domain name such as example.com is expected, without scheme, port or path, or every passkey and WebAuthn ceremony fails",
          "AUTHSVC_WEBAUTHN_RP_ORIGINS: app.example.com is no origin such as https://app.example.com, and never matches a browser's, so every passkey and WebAuthn ceremony fails from it",
          "AUTHSVC_WEBAUTHN_CHALLENGE_EXPIRY_DURATION is 0: a challenge expires as it is made, so every passkey and WebAuthn ceremony fails; 5m is Supabase Auth's default"
        ])
        // Off, nothing uses the relying party, and nothing is said of it.
        expect(yield* warningsOf({ AUTHSVC_WEBAUTHN_RP_ID: "https://example.com" })).toEqual([])
      })
    )

    it.effect("accepts postgres as DB_DRIVER, and Supabase Auth's synonyms of it with a warning", () =>
      Effect.gen(function* () {
        expect(yield* warningsOf({ AUTHSVC_DB_DRIVER: "postgres" })).toEqual([])
        expect(yield* warningsOf({ AUTHSVC_DB_DRIVER: "pgx" })).toEqual([
          "AUTHSVC_DB_DRIVER is pgx, read as postgres; write postgres"
        ])
        for (const driver of ["mysql", "sqlite3", "Postgres"]) {
          expect(yield* report({ AUTHSVC_DB_DRIVER: driver })).toEqual([
            "AUTHSVC_DB_DRIVER: expected postgres"
          ])
        }
      })
    )

    it.effect("gives the migrate command the database alone, without the server's required URLs", () =>
      Effect.gen(function* () {
        const result = yield* Effect.withConfigProvider(
          AuthConfig.database,
          AuthEnvironment.provider(
            AuthEnvironment.merge(Option.none(), {
              LATCHKEY_DATA_DIR: "/var/lib/latchkey",
              AUTHSVC_DB_NAMESPACE: "auth_",
              LOG_LEVEL: "debug"
            })
          )
        )
        expect(result.db).toEqual({
          url: Option.none(),
          urlVariable: "AUTHSVC_DB_DATABASE_URL",
          dataDir: "/var/lib/latchkey/auth",
          namespace: "auth_",
          maxPoolSize: Option.none(),
          connMaxIdleTime: Option.none(),
          preparedStatements: true
        })
        expect(result.logLevel).toBe(LogLevel.Debug)
      })
    )
  })

  describe("listening", () => {
    it.effect("prefers AUTHSVC_API_PORT to PORT, and defaults to 8081", () =>
      Effect.gen(function* () {
        expect((yield* config({ AUTHSVC_API_PORT: "9000", PORT: "9001" })).api.port).toBe(9000)
        expect((yield* config({ PORT: "9001" })).api.port).toBe(9001)
        expect((yield* config({ AUTHSVC_API_HOST: "127.0.0.1" })).api).toMatchObject({
          host: "127.0.0.1",
          port: 8081
        })
      })
    )

    it.effect("reports a wrong port under the name that holds it", () =>
      Effect.gen(function* () {
        expect(yield* report({ AUTHSVC_API_PORT: "http", PORT: "9001" })).toEqual([
          "AUTHSVC_API_PORT: expected a port number, 0 to 65535"
        ])
        expect(yield* report({ PORT: "70000" })).toEqual(["PORT: expected a port number, 0 to 65535"])
      })
    )
  })

  describe("mail", () => {
    it.effect("sends no mail without SMTP_HOST, an empty one included", () =>
      Effect.gen(function* () {
        expect((yield* config({})).smtp).toEqual(Option.none())
        expect((yield* config({ AUTHSVC_SMTP_HOST: " " })).smtp).toEqual(Option.none())
      })
    )

    it.effect("reads the mail server, its login and the From address", () =>
      Effect.gen(function* () {
        const smtp = (yield* config({
          AUTHSVC_SMTP_HOST: "smtp.example.com",
          AUTHSVC_SMTP_PORT: "465",
          AUTHSVC_SMTP_USER: "mailer",
          AUTHSVC_SMTP_PASS: "hunter2",
          AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com",
          AUTHSVC_SMTP_SENDER_NAME: "Example"
        })).smtp
        expect(
          Option.map(smtp, ({ pass, ...rest }) => ({ ...rest, pass: Option.map(pass, Redacted.value) }))
        ).toEqual(
          Option.some({
            host: "smtp.example.com",
            port: 465,
            user: Option.some("mailer"),
            pass: Option.some("hunter2"),
            adminEmail: Option.some("auth@example.com"),
            senderName: Option.some("Example"),
            maxConnections: 5
          })
        )
      })
    )

    it.effect("takes SMTP_MAX_CONNECTIONS from 1 to 100", () =>
      Effect.gen(function* () {
        const base = {
          AUTHSVC_SMTP_HOST: "h",
          AUTHSVC_SMTP_PORT: "25",
          AUTHSVC_SMTP_ADMIN_EMAIL: "a@example.com"
        }
        const smtp = (yield* config({ ...base, AUTHSVC_SMTP_MAX_CONNECTIONS: "40" })).smtp
        expect(Option.map(smtp, (settings) => settings.maxConnections)).toEqual(Option.some(40))
        for (const value of ["0", "101", "ten", "2.5"]) {
          expect(yield* report({ ...base, AUTHSVC_SMTP_MAX_CONNECTIONS: value }), value).toEqual([
            "AUTHSVC_SMTP_MAX_CONNECTIONS: expected a whole number from 1 to 100"
          ])
        }
      })
    )

    it.effect("starts with SMTP_HOST alone, as Supabase Auth does: port 587, and a warning of no From", () =>
      Effect.gen(function* () {
        const alone = { AUTHSVC_SMTP_HOST: "smtp.example.com" }
        expect(
          Option.map((yield* config(alone)).smtp, ({ port, adminEmail }) => ({ port, adminEmail }))
        ).toEqual(Option.some({ port: 587, adminEmail: Option.none() }))
        expect(yield* warningsOf(alone)).toEqual([
          "AUTHSVC_SMTP_ADMIN_EMAIL is unset: mail leaves without a From address, which most mail servers refuse; set it to the sender's address"
        ])
        // A whole From, as Supabase Auth writes one when no sender name is set.
        const named = { ...alone, AUTHSVC_SMTP_ADMIN_EMAIL: "Example <auth@example.com>" }
        expect(Option.map((yield* config(named)).smtp, ({ adminEmail }) => adminEmail)).toEqual(
          Option.some(Option.some("Example <auth@example.com>"))
        )
        expect(yield* warningsOf(named)).toEqual([])
        expect(yield* report({ ...alone, AUTHSVC_SMTP_PORT: "smtp" })).toEqual([
          "AUTHSVC_SMTP_PORT: expected a port number, 0 to 65535"
        ])
      })
    )

    it.effect("takes subjects that parse as templates, and names one that does not", () =>
      Effect.gen(function* () {
        expect(
          (yield* config({ AUTHSVC_MAILER_SUBJECTS_REAUTHENTICATION: "Code: {{ .Token }}" })).mailer.subjects
        ).toEqual({ reauthentication: "Code: {{ .Token }}" })
        // One it cannot render leaves the built-in subject, as Supabase Auth does with one it
        // cannot parse, and says so at start.
        const unparsed = { AUTHSVC_MAILER_SUBJECTS_MAGIC_LINK: "{{ range .X }}" }
        expect((yield* config(unparsed)).mailer.subjects).toEqual({})
        expect(yield* warningsOf(unparsed)).toEqual([
          "AUTHSVC_MAILER_SUBJECTS_MAGIC_LINK does not parse as a template (fields, if, else and not are read): the built-in subject is used, as Supabase Auth does with a subject it cannot parse"
        ])
      })
    )
  })

  it.effect("reads telemetry with the AUTHSVC_ prefix, LOG_LEVEL without", () =>
    Effect.gen(function* () {
      const c = yield* config({
        AUTHSVC_TRACING_ENABLED: "true",
        LOG_LEVEL: "warn",
        TRACING_ENABLED: "false"
      })
      expect(c.telemetry.tracing).toBe(true)
      expect(c.telemetry.logLevel).toBe(LogLevel.Warning)
    })
  )

  it.effect("lets the environment win over the .env file", () =>
    Effect.gen(function* () {
      const file = Option.some("AUTHSVC_JWT_AUD=from-file\nAUTHSVC_DISABLE_SIGNUP=true\nPORT=7000")
      const c = Either.getOrThrow(yield* loadFrom(file, { AUTHSVC_JWT_AUD: "from-env" }))
      expect(c.jwt.aud).toBe("from-env")
      expect(c.disableSignup).toBe(true)
      expect(c.api.port).toBe(7000)
    })
  )

  it.effect("reports every wrong value at once, one line each", () =>
    Effect.gen(function* () {
      const lines = yield* report({
        AUTHSVC_DISABLE_SIGNUP: "maybe",
        AUTHSVC_JWT_EXP: "1h",
        AUTHSVC_DB_DRIVER: "sqlite",
        LOG_LEVEL: "loud"
      })
      expect(lines).toHaveLength(4)
      expect(lines).toContain("AUTHSVC_DISABLE_SIGNUP: expected true or false (also 1/0, t/f)")
      expect(lines).toContain("AUTHSVC_JWT_EXP: expected a whole number, 0 or more")
      expect(lines).toContain("AUTHSVC_DB_DRIVER: expected postgres")
      expect(lines).toContain("LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, trace")
    })
  )

  it.effect("warns of SMS_TEST_OTP pairs no sign-in can match, quoting them", () =>
    Effect.gen(function* () {
      expect(yield* warningsOf({ AUTHSVC_SMS_TEST_OTP: "<phone-1>:<otp-1>, 15555550100:123456" })).toEqual([
        'AUTHSVC_SMS_TEST_OTP holds "<phone-1>:<otp-1>", which no sign-in can match (a phone number of 2 to 15 digits and a code are expected): it is left out'
      ])
      expect(yield* warningsOf({ AUTHSVC_SMS_TEST_OTP: "15555550100:123456" })).toEqual([])
    })
  )

  it.effect("warns of a tracing or metrics exporter that exports nothing", () =>
    Effect.gen(function* () {
      expect(
        yield* warningsOf({
          AUTHSVC_TRACING_ENABLED: "true",
          AUTHSVC_TRACING_EXPORTER: "default",
          AUTHSVC_METRICS_EXPORTER: "statsd"
        })
      ).toEqual([
        "AUTHSVC_TRACING_EXPORTER is default: traces are exported only by opentelemetry, so none are, as in Supabase Auth",
        "AUTHSVC_METRICS_EXPORTER is statsd: metrics are exported only by opentelemetry or prometheus, so none are, as in Supabase Auth"
      ])
      expect(yield* warningsOf({ AUTHSVC_TRACING_EXPORTER: "opentelemetry" })).toEqual([])
    })
  )

  it.effect("warns of a request-id header or Prometheus address no use can have, and starts", () =>
    Effect.gen(function* () {
      expect(
        yield* warningsOf({
          AUTHSVC_REQUEST_ID_HEADER: "Request Id",
          OTEL_EXPORTER_PROMETHEUS_PORT: "99999"
        })
      ).toEqual([
        'AUTHSVC_REQUEST_ID_HEADER is "Request Id", which no HTTP header can be named: no request carries it, so every request\'s id is made here, as in Supabase Auth',
        'OTEL_EXPORTER_PROMETHEUS_PORT is "99999", which no listener can take: unread while metrics are not exported to Prometheus, and no endpoint would be served'
      ])
      expect(
        yield* warningsOf({
          AUTHSVC_METRICS_ENABLED: "true",
          AUTHSVC_METRICS_EXPORTER: "prometheus",
          OTEL_EXPORTER_PROMETHEUS_HOST: "[::1"
        })
      ).toEqual([
        'OTEL_EXPORTER_PROMETHEUS_HOST is "[::1", which no listener can take: no Prometheus endpoint is served, as Supabase Auth serves none when its listener cannot start'
      ])
      expect(
        yield* warningsOf({
          AUTHSVC_REQUEST_ID_HEADER: "X-Request-Id",
          OTEL_EXPORTER_PROMETHEUS_HOST: "[::1]",
          OTEL_EXPORTER_PROMETHEUS_PORT: "9464"
        })
      ).toEqual([])
    })
  )
})
