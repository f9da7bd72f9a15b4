import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuthEnvironment from "../../../bootstrap/auth/AuthEnvironment.js"
import * as CaptchaConfig from "../../../bootstrap/auth/CaptchaConfig.js"
import * as ConfigReport from "../../../bootstrap/ConfigReport.js"

const load = (env: Record<string, string>) =>
  Effect.withConfigProvider(
    CaptchaConfig.captcha,
    AuthEnvironment.provider(AuthEnvironment.merge(Option.none(), env))
  ).pipe(Effect.either, Effect.map(Either.mapLeft(ConfigReport.lines)))

/** The settings of a start that must succeed, the secret revealed and the time limit in ms. */
const config = (env: Record<string, string>) =>
  Effect.map(load(env), (result) =>
    Option.map(Either.getOrThrow(result), ({ secret, timeout, ...rest }) => ({
      ...rest,
      secret: Redacted.value(secret),
      timeoutMs: Duration.toMillis(timeout)
    }))
  )

/** The report of a start that must fail. */
const report = (env: Record<string, string>) =>
  Effect.map(load(env), (result) => Either.getOrThrowWith(Either.flip(result), () => "the start succeeded"))

const on = { AUTHSVC_SECURITY_CAPTCHA_ENABLED: "true", AUTHSVC_SECURITY_CAPTCHA_SECRET: "0xsecret" }

describe("captcha configuration", () => {
  it.effect("is off by default, and off leaves the provider and the secret unchecked", () =>
    Effect.gen(function* () {
      expect(yield* config({})).toEqual(Option.none())
      expect(
        yield* config({
          AUTHSVC_SECURITY_CAPTCHA_ENABLED: "false",
          AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "recaptcha"
        })
      ).toEqual(Option.none())
    })
  )

  it.effect("turns on with a secret: hCaptcha and 10 seconds unless told otherwise", () =>
    Effect.gen(function* () {
      expect(yield* config(on)).toEqual(
        Option.some({ provider: "hcaptcha", secret: "0xsecret", timeoutMs: 10_000 })
      )
      expect(
        yield* config({
          AUTHSVC_SECURITY_CAPTCHA_ENABLED: "1",
          AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "turnstile",
          AUTHSVC_SECURITY_CAPTCHA_SECRET: "  0x4AAA  ",
          AUTHSVC_SECURITY_CAPTCHA_TIMEOUT: "1m30s"
        })
      ).toEqual(Option.some({ provider: "turnstile", secret: "0x4AAA", timeoutMs: 90_000 }))
    })
  )

  it.effect(
    "reads the time limit as seconds or a Go duration; zero is the default, as in Supabase Auth",
    () =>
      Effect.gen(function* () {
        const timeout = (value: string) =>
          Effect.map(
            config({ ...on, AUTHSVC_SECURITY_CAPTCHA_TIMEOUT: value }),
            Option.map((c) => c.timeoutMs)
          )
        expect(yield* timeout("5")).toEqual(Option.some(5000))
        expect(yield* timeout("2500ms")).toEqual(Option.some(2500))
        expect(yield* timeout("0")).toEqual(Option.some(10_000))
        expect(yield* timeout("0s")).toEqual(Option.some(10_000))
      })
  )

  it.effect("keeps the secret redacted", () =>
    Effect.gen(function* () {
      const loaded = Either.getOrThrow(yield* load(on))
      expect(Option.map(loaded, ({ secret }) => String(secret))).toEqual(Option.some("<redacted>"))
    })
  )

  it.effect("requires a secret when on, and a provider it knows, one line each", () =>
    Effect.gen(function* () {
      expect(yield* report({ AUTHSVC_SECURITY_CAPTCHA_ENABLED: "true" })).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_SECRET: is required with AUTHSVC_SECURITY_CAPTCHA_ENABLED"
      ])
      expect(yield* report({ ...on, AUTHSVC_SECURITY_CAPTCHA_SECRET: "   " })).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_SECRET: is required with AUTHSVC_SECURITY_CAPTCHA_ENABLED"
      ])
      expect(yield* report({ ...on, AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "recaptcha" })).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_PROVIDER: expected hcaptcha or turnstile"
      ])
      expect(
        yield* report({
          AUTHSVC_SECURITY_CAPTCHA_ENABLED: "true",
          AUTHSVC_SECURITY_CAPTCHA_PROVIDER: "HCaptcha"
        })
      ).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_PROVIDER: expected hcaptcha or turnstile",
        "AUTHSVC_SECURITY_CAPTCHA_SECRET: is required with AUTHSVC_SECURITY_CAPTCHA_ENABLED"
      ])
    })
  )

  it.effect("refuses a switch or a time limit it cannot read, even with the captcha off", () =>
    Effect.gen(function* () {
      expect(yield* report({ AUTHSVC_SECURITY_CAPTCHA_ENABLED: "yes" })).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_ENABLED: expected true or false (also 1/0, t/f)"
      ])
      expect(yield* report({ AUTHSVC_SECURITY_CAPTCHA_TIMEOUT: "soon" })).toEqual([
        "AUTHSVC_SECURITY_CAPTCHA_TIMEOUT: expected seconds or a Go duration, e.g. 10, 10s or 1m30s"
      ])
    })
  )

  it("names the variables it reads", () => {
    expect(CaptchaConfig.variables).toEqual([
      "AUTHSVC_SECURITY_CAPTCHA_ENABLED",
      "AUTHSVC_SECURITY_CAPTCHA_PROVIDER",
      "AUTHSVC_SECURITY_CAPTCHA_SECRET",
      "AUTHSVC_SECURITY_CAPTCHA_TIMEOUT"
    ])
  })
})
