import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuthConfig from "../../../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as AuthStart from "../../../bootstrap/auth/AuthStart.js"

const variables = (env: Record<string, string>) => AuthEnvironment.merge(Option.none(), env)

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
