import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as AuthStart from "../../../bootstrap/auth/AuthStart.js"

const variables = (env: Record<string, string>) => AuthEnvironment.merge(Option.none(), env)

/** What the auth service starts with from `env` in `mode`, `secret` being the development one. */
const fromVariablesWith = (mode: AuthStart.Mode, env: Record<string, string>, secret: string) =>
  AuthStart.fromVariables(mode, variables(env), secret)

/** The configuration the auth service reads from `env` in `mode`. */
const configIn = (mode: AuthStart.Mode, env: Record<string, string>) =>
  Effect.withConfigProvider(
    AuthConfig.server,
    AuthEnvironment.provider(AuthStart.adjust(mode, variables(env)))
  )

const deployed = {
  AUTHSVC_SITE_URL: "https://app.example.com",
  AUTHSVC_API_EXTERNAL_URL: "https://auth.example.com"
}

describe("latchkey dev's development defaults", () => {
  it.effect("confirm addresses, and send the mail to the development inbox's SMTP server", () =>
    Effect.gen(function* () {
      const config = yield* configIn("dev", {})
      expect(config.siteUrl).toBe("http://localhost:3000")
      expect(config.api.externalUrl).toBe("http://localhost:8081")
      expect(config.mailerAutoconfirm).toBe(false)
      expect(config.smsAutoconfirm).toBe(false)
      expect(config.external.anonymousUsers).toBe(true)
      expect(Duration.toMillis(config.mailer.maxFrequency)).toBe(1000)
      expect(Option.map(config.smtp, ({ host, port, adminEmail }) => ({ host, port, adminEmail }))).toEqual(
        Option.some({ host: "127.0.0.1", port: 54325, adminEmail: Option.some("noreply@localhost") })
      )
      expect(AuthStart.mailsToInbox("dev", variables({}))).toBe(true)
    })
  )

  it.effect("raise the limits per client address, which a test suite on one address would reach", () =>
    Effect.gen(function* () {
      const { rateLimit } = yield* configIn("dev", {})
      const limits = [
        rateLimit.otp,
        rateLimit.verify,
        rateLimit.tokenRefresh,
        rateLimit.anonymousUsers,
        rateLimit.passkey,
        rateLimit.mfaChallengeAndVerify
      ]
      expect(limits.map((limit) => limit.max)).toEqual(limits.map(() => AuthStart.developmentRequestLimit))
      // What the user sets wins; elsewhere the defaults are Supabase Auth's.
      expect((yield* configIn("dev", { AUTHSVC_RATE_LIMIT_VERIFY: "5" })).rateLimit.verify.max).toBe(5)
      expect((yield* configIn("beside", deployed)).rateLimit.verify.max).toBe(30)
    })
  )

  it.effect("move the inbox's SMTP server to AUTHSVC_SMTP_PORT, and yield to what the user set", () =>
    Effect.gen(function* () {
      const config = yield* configIn("dev", {
        AUTHSVC_SMTP_PORT: "2525",
        AUTHSVC_MAILER_AUTOCONFIRM: "true",
        AUTHSVC_SMTP_MAX_FREQUENCY: "60"
      })
      expect(Option.map(config.smtp, ({ host, port }) => ({ host, port }))).toEqual(
        Option.some({ host: "127.0.0.1", port: 2525 })
      )
      expect(config.mailerAutoconfirm).toBe(true)
      expect(Duration.toSeconds(config.mailer.maxFrequency)).toBe(60)
    })
  )

  it.effect("leave the mail to a server the user names: then the inbox receives none", () =>
    Effect.gen(function* () {
      const env = { AUTHSVC_SMTP_HOST: "smtp.example.com", AUTHSVC_SMTP_PORT: "587" }
      // Nothing of the inbox's is filled in: not even the From address.
      const config = yield* configIn("dev", env)
      expect(Option.map(config.smtp, ({ adminEmail }) => adminEmail)).toEqual(Option.some(Option.none()))
      const complete = yield* configIn("dev", { ...env, AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com" })
      expect(Option.map(complete.smtp, ({ host, port }) => ({ host, port }))).toEqual(
        Option.some({ host: "smtp.example.com", port: 587 })
      )
      expect(AuthStart.mailsToInbox("dev", variables(env))).toBe(false)
    })
  )

  it.effect("apply to `latchkey dev` alone", () =>
    Effect.gen(function* () {
      const modes: ReadonlyArray<AuthStart.Mode> = ["alone", "beside"]
      for (const mode of modes) {
        const config = yield* configIn(mode, deployed)
        expect(Option.isNone(config.smtp)).toBe(true)
        expect(config.external.anonymousUsers).toBe(false)
        expect(config.outbound.allowedPrivateAddresses.ranges).toEqual([])
        expect(AuthStart.mailsToInbox(mode, variables(deployed))).toBe(false)
      }
    })
  )

  it.effect("let outbound calls reach this machine's loopback, unless the user set the list", () =>
    Effect.gen(function* () {
      expect((yield* configIn("dev", {})).outbound.allowedPrivateAddresses.ranges).toEqual([
        "127.0.0.0/8",
        "::1/128"
      ])
      const set = yield* configIn("dev", { AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES: "10.0.0.0/8" })
      expect(set.outbound.allowedPrivateAddresses.ranges).toEqual(["10.0.0.0/8"])
    })
  )

  it.effect("sign API keys with the development secret, unless a JWT secret is set, never outside dev", () =>
    Effect.gen(function* () {
      const made = "a-development-secret-of-43-random-characters"
      const dev = yield* fromVariablesWith("dev", {}, made)
      expect(Option.map(dev.config.jwt.secret, Redacted.value)).toEqual(Option.some(made))
      expect(dev.defaulted.has("AUTHSVC_JWT_SECRET")).toBe(true)
      // Supabase Auth's name counts as set.
      const gotrue = yield* fromVariablesWith(
        "dev",
        { GOTRUE_JWT_SECRET: "the-operator-s-own-secret-of-32-chars" },
        made
      )
      expect(Option.map(gotrue.config.jwt.secret, Redacted.value)).toEqual(
        Option.some("the-operator-s-own-secret-of-32-chars")
      )
      expect(gotrue.defaulted.has("AUTHSVC_JWT_SECRET")).toBe(false)
      const alone = yield* fromVariablesWith("alone", deployed, made)
      expect(Option.isNone(alone.config.jwt.secret)).toBe(true)
    })
  )

  it.effect("keep the development secret in the data folder: made once, then read", () =>
    Effect.gen(function* () {
      const folder = mkdtempSync(join(tmpdir(), "latchkey-dev-secret-"))
      const path = AuthStart.devSecretPath(variables({ LATCHKEY_DATA_DIR: `${folder}/data/` }))
      expect(path).toBe(`${folder}/data/dev-jwt-secret`)
      const first = yield* AuthStart.devSecret(path)
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(readFileSync(path, "utf8").trim()).toBe(first)
      expect(yield* AuthStart.devSecret(path)).toBe(first)
      expect(AuthStart.devSecretPath(variables({}))).toBe(".latchkey/dev-jwt-secret")
      rmSync(folder, { recursive: true, force: true })
    })
  )
})

describe("where the auth service listens", () => {
  it.effect(
    "latchkey dev listens on loopback unless AUTHSVC_API_HOST says otherwise; the others on every address",
    () =>
      Effect.gen(function* () {
        expect((yield* configIn("dev", {})).api.host).toBe("127.0.0.1")
        expect((yield* configIn("dev", { AUTHSVC_API_HOST: "0.0.0.0" })).api.host).toBe("0.0.0.0")
        expect((yield* configIn("beside", deployed)).api.host).toBe("0.0.0.0")
        expect((yield* configIn("alone", deployed)).api.host).toBe("0.0.0.0")
      })
  )

  it("names the variables that set the port, PORT only when the auth service runs alone", () => {
    expect(AuthStart.portVariablesOf("alone")).toBe("AUTHSVC_API_PORT, else PORT")
    expect(AuthStart.portVariablesOf("beside")).toBe("AUTHSVC_API_PORT")
    expect(AuthStart.portVariablesOf("dev")).toBe("AUTHSVC_API_PORT")
  })
})

describe("the operator commands' configuration", () => {
  it.effect("needs neither SITE_URL nor API_EXTERNAL_URL, and reads what the commands use", () =>
    Effect.gen(function* () {
      const config = yield* AuthStart.operatorFromVariables(
        variables({
          DATABASE_URL: "postgres://u:p@db:5432/auth",
          AUTHSVC_DB_NAMESPACE: "acme",
          AUTHSVC_JWT_AUD: "people",
          AUTHSVC_JWT_EXP: "600",
          AUTHSVC_PASSWORD_MIN_LENGTH: "12",
          LOG_LEVEL: "debug"
        })
      )
      expect(config.db.url.pipe(Option.map(Redacted.value))).toEqual(
        Option.some("postgres://u:p@db:5432/auth")
      )
      expect(config.db.urlVariable).toBe("DATABASE_URL")
      expect(config.db.namespace).toBe("acme")
      expect(config.jwt.aud).toBe("people")
      expect(config.jwt.expSeconds).toBe(600)
      expect(config.passwordPolicy.minLength).toBe(12)
      expect(config.telemetry.logLevel._tag).toBe("Debug")
      expect(config.siteUrl).toBe(AuthStart.operatorPlaceholderUrl)
    })
  )

  it.effect("reads no variable of the serving instances: one set wrong does not stop a command", () =>
    Effect.gen(function* () {
      const config = yield* AuthStart.operatorFromVariables(
        variables({
          AUTHSVC_SMS_PROVIDER: "carrier-pigeon",
          AUTHSVC_API_PORT: "not a port",
          AUTHSVC_RATE_LIMIT_OTP: "many"
        })
      )
      expect(Option.isNone(config.db.url)).toBe(true)
      expect(config.api.port).toBe(8081)
    })
  )

  it.effect("takes SITE_URL and API_EXTERNAL_URL when set, and refuses a wrong database URL", () =>
    Effect.gen(function* () {
      const config = yield* AuthStart.operatorFromVariables(variables(deployed))
      expect(config.siteUrl).toBe("https://app.example.com")
      expect(config.api.externalUrl).toBe("https://auth.example.com")
      const wrong = yield* Effect.flip(
        AuthStart.operatorFromVariables(variables({ DATABASE_URL: "mysql://db" }))
      )
      expect(String(wrong)).toContain("DATABASE_URL")
    })
  )

  it.effect("names the database URL's variable as the operator wrote it", () =>
    Effect.gen(function* () {
      const named = (env: Record<string, string>) =>
        Effect.map(AuthStart.operatorFromVariables(variables(env)), (config) => config.db.urlVariable)
      const url = "postgres://u:p@db:5432/auth"
      expect(yield* named({ AUTHSVC_DB_DATABASE_URL: url, DATABASE_URL: url })).toBe(
        "AUTHSVC_DB_DATABASE_URL"
      )
      expect(yield* named({ GOTRUE_DB_DATABASE_URL: url })).toBe("GOTRUE_DB_DATABASE_URL")
      expect(yield* named({ DATABASE_URL: url })).toBe("DATABASE_URL")
    })
  )
})
