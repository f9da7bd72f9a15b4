import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CaptchaProviders from "../../../adapters/captcha/auth/CaptchaProviders.js"
import * as Turnstile from "../../../adapters/captcha/auth/Turnstile.js"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Captcha from "../../../application/auth/Captcha.js"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import * as TurnstileFake from "../../support/auth/captcha/TurnstileFake.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const secret = "0x4AAAAAAA-turnstile-secret"
const ip = Option.some("2001:db8::7")

const verifier = (baseUrl: string, timeout: Duration.Duration = Duration.seconds(5)) =>
  // The fakes listen on 127.0.0.1, which the outbound guard refuses unless the operator's list names it.
  Turnstile.make({
    secret: Redacted.make(secret),
    timeout,
    baseUrl,
    allowedPrivateAddresses: Allowed.localhost
  })

/** The failure's message, for a verification that must fail. */
const unavailable = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

describe("Cloudflare Turnstile", () => {
  it.scoped("posts the documented form to /turnstile/v0/siteverify and passes a good token", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start(secret)
      expect(yield* verifier(fake.baseUrl).verify("0.turnstile-token", ip)).toEqual({ _tag: "Passed" })
      yield* verifier(fake.baseUrl).verify("0.other-token", Option.none())
      expect(fake.problems).toEqual([])
      expect(fake.received).toEqual([
        {
          method: "POST",
          path: "/turnstile/v0/siteverify",
          contentType: "application/x-www-form-urlencoded",
          fields: [
            ["secret", secret],
            ["response", "0.turnstile-token"],
            ["remoteip", "2001:db8::7"]
          ]
        },
        {
          method: "POST",
          path: "/turnstile/v0/siteverify",
          contentType: "application/x-www-form-urlencoded",
          fields: [
            ["secret", secret],
            ["response", "0.other-token"]
          ]
        }
      ])
    })
  )

  it.scoped("reports a refusal with Turnstile's error codes", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start(secret)
      fake.reply = SiteVerifyFake.refuse(["timeout-or-duplicate"])
      expect(yield* verifier(fake.baseUrl).verify("0.token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["timeout-or-duplicate"]
      })
      fake.reply = SiteVerifyFake.refuse(["invalid-input-response", "bad-request"], 400)
      expect(yield* verifier(fake.baseUrl).verify("0.token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["invalid-input-response", "bad-request"]
      })
      // Go's decoder reads a null list as an empty one.
      fake.reply = SiteVerifyFake.answer(200, '{"success":false,"error-codes":null}')
      expect(yield* verifier(fake.baseUrl).verify("0.token", ip)).toEqual({ _tag: "Refused", errorCodes: [] })
    })
  )

  it.scoped("is refused with invalid-input-secret when the secret is not the widget's", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start("0x4AAAAAAA-another")
      expect(yield* verifier(fake.baseUrl).verify("0.token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["invalid-input-secret"]
      })
    })
  )

  it.scoped("gives no verdict on a server error or an answer that is not one", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start(secret)
      fake.reply = SiteVerifyFake.answer(502, "<html>Bad gateway</html>")
      expect(yield* unavailable(verifier(fake.baseUrl).verify("0.token", ip))).toBe(
        "answered with status 502"
      )
      fake.reply = SiteVerifyFake.answer(200, "not json")
      expect(yield* unavailable(verifier(fake.baseUrl).verify("0.token", ip))).toBe(
        "answered with something other than a verification result"
      )
      fake.reply = SiteVerifyFake.answer(200, "[true]")
      expect(yield* unavailable(verifier(fake.baseUrl).verify("0.token", ip))).toBe(
        "answered with something other than a verification result"
      )
      expect(fake.problems).toEqual([])
    })
  )

  it.scoped("gives up after the time limit on a provider that never answers", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start(secret)
      fake.reply = SiteVerifyFake.hang
      expect(yield* unavailable(verifier(fake.baseUrl, Duration.millis(100)).verify("0.token", ip))).toBe(
        "no answer within 100ms"
      )
    })
  )

  it.effect("gives no verdict when the provider cannot be reached", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const message = yield* unavailable(verifier(`http://127.0.0.1:${port}`).verify("0.token", ip))
      expect(message).toMatch(/^could not reach 127\.0\.0\.1: .*ECONNREFUSED/)
      expect(message).not.toContain(secret)
    })
  )
})

describe("Turnstile through CaptchaProviders and Captcha.check", () => {
  it.scoped("asks Turnstile when the provider is turnstile, and answers its verdicts", () =>
    Effect.gen(function* () {
      const fake = yield* TurnstileFake.start(secret)
      const layer = CaptchaProviders.layer(
        Option.some({
          provider: "turnstile",
          secret: Redacted.make(secret),
          timeout: Duration.seconds(5),
          baseUrl: fake.baseUrl,
          allowedPrivateAddresses: Allowed.localhost
        })
      )
      const check = (token: string | undefined) =>
        Captcha.check(token, ip).pipe(
          Effect.provide(layer),
          Effect.either,
          Effect.map(
            Either.match({
              onLeft: (reason) => [
                ErrorResponse.describe(reason).code,
                ErrorResponse.describe(reason).message
              ],
              onRight: () => "passed"
            })
          )
        )
      expect(yield* check("0.token")).toBe("passed")
      expect(fake.received).toHaveLength(1)
      fake.reply = SiteVerifyFake.refuse(["timeout-or-duplicate", "invalid-input-response"])
      expect(yield* check("0.token")).toEqual([
        "captcha_failed",
        "captcha protection: request disallowed (timeout-or-duplicate, invalid-input-response)"
      ])
      fake.reply = SiteVerifyFake.hang
      const hanging = CaptchaProviders.layer(
        Option.some({
          provider: "turnstile",
          secret: Redacted.make(secret),
          timeout: Duration.millis(100),
          baseUrl: fake.baseUrl,
          allowedPrivateAddresses: Allowed.localhost
        })
      )
      const timedOut = ErrorResponse.describe(
        yield* Effect.flip(Captcha.check("0.token", ip).pipe(Effect.provide(hanging)))
      )
      expect([timedOut.code, timedOut.message]).toEqual([
        "unexpected_failure",
        "captcha verification process failed"
      ])
    })
  )
})
