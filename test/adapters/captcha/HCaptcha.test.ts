import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Tracer from "effect/Tracer"
import * as CaptchaProviders from "../../../adapters/captcha/auth/CaptchaProviders.js"
import * as HCaptcha from "../../../adapters/captcha/auth/HCaptcha.js"
import * as SiteVerify from "../../../adapters/captcha/auth/SiteVerify.js"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Captcha from "../../../application/auth/Captcha.js"
import * as HCaptchaFake from "../../support/auth/captcha/HCaptchaFake.js"
import * as SiteVerifyFake from "../../support/auth/captcha/SiteVerifyFake.js"
import { freePort } from "../../support/FreePort.js"
import * as Allowed from "../../support/outbound/Allowed.js"

const secret = "0x51a7e5ec2e7-hcaptcha-secret"
const ip = Option.some("203.0.113.7")

const verifier = (baseUrl: string, options: { timeout?: Duration.Duration; siteKey?: string } = {}) =>
  HCaptcha.make({
    secret: Redacted.make(secret),
    timeout: options.timeout ?? Duration.seconds(5),
    baseUrl,
    // The fakes listen on 127.0.0.1, which the outbound guard refuses unless the operator's list names it.
    allowedPrivateAddresses: Allowed.localhost,
    ...(options.siteKey === undefined ? {} : { siteKey: Option.some(options.siteKey) })
  })

/** The failure's message, for a verification that must fail. */
const unavailable = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

/** The spans `effect` makes, by name and attributes. */
const spansOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const base = yield* Effect.tracer
    const spans: Array<Tracer.Span> = []
    const recording = Tracer.make({
      span: (...args) => {
        const span = base.span(...args)
        spans.push(span)
        return span
      },
      context: base.context
    })
    yield* Effect.either(Effect.withTracer(effect, recording))
    return spans.map((span) => ({ name: span.name, attributes: Object.fromEntries(span.attributes) }))
  })

describe("hCaptcha", () => {
  it.scoped("posts the documented form to /siteverify and passes a good token", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      const outcome = yield* verifier(fake.baseUrl).verify("P1_token", ip)
      expect(outcome).toEqual({ _tag: "Passed" })
      expect(fake.problems).toEqual([])
      expect(fake.received).toEqual([
        {
          method: "POST",
          path: "/siteverify",
          contentType: "application/x-www-form-urlencoded",
          fields: [
            ["secret", secret],
            ["response", "P1_token"],
            ["remoteip", "203.0.113.7"]
          ]
        }
      ])
    })
  )

  it.scoped("sends the site key when one is set, and no remoteip when the address is unknown", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      yield* verifier(fake.baseUrl, { siteKey: "10000000-ffff-ffff-ffff-000000000001" }).verify(
        "P1_token",
        Option.none()
      )
      expect(fake.problems).toEqual([])
      expect(fake.received.map((request) => request.fields)).toEqual([
        [
          ["secret", secret],
          ["response", "P1_token"],
          ["sitekey", "10000000-ffff-ffff-ffff-000000000001"]
        ]
      ])
    })
  )

  it.scoped("reports a refusal with hCaptcha's error codes, whatever the status", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      fake.reply = SiteVerifyFake.refuse(["invalid-input-response", "already-seen-response"])
      expect(yield* verifier(fake.baseUrl).verify("P1_token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["invalid-input-response", "already-seen-response"]
      })
      fake.reply = SiteVerifyFake.refuse(["bad-request"], 400)
      expect(yield* verifier(fake.baseUrl).verify("P1_token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["bad-request"]
      })
      fake.reply = SiteVerifyFake.answer(200, '{"success":false}')
      expect(yield* verifier(fake.baseUrl).verify("P1_token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: []
      })
    })
  )

  it.scoped("is refused with invalid-input-secret when the secret is not the account's", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start("0xanother-secret")
      expect(yield* verifier(fake.baseUrl).verify("P1_token", ip)).toEqual({
        _tag: "Refused",
        errorCodes: ["invalid-input-secret"]
      })
    })
  )

  it.scoped(
    "gives no verdict on a server error, a success on an error status, or an answer that is not one",
    () =>
      Effect.gen(function* () {
        const fake = yield* HCaptchaFake.start(secret)
        const cases: ReadonlyArray<readonly [SiteVerifyFake.Reply, string]> = [
          [SiteVerifyFake.answer(503, "<html>Service Unavailable</html>"), "answered with status 503"],
          [SiteVerifyFake.answer(500, '{"success":true}'), "answered with status 500"],
          [
            SiteVerifyFake.answer(200, "<html>maintenance</html>"),
            "answered with something other than a verification result"
          ],
          [
            SiteVerifyFake.answer(200, '{"error-codes":[]}'),
            "answered with something other than a verification result"
          ],
          [
            SiteVerifyFake.answer(200, '{"success":"yes","error-codes":[]}'),
            "answered with something other than a verification result"
          ],
          [
            SiteVerifyFake.answer(
              200,
              `{"success":false,"error-codes":"${"x".repeat(SiteVerify.maxAnswerBytes)}"}`
            ),
            `answer larger than ${SiteVerify.maxAnswerBytes} bytes (status 200)`
          ]
        ]
        for (const [reply, message] of cases) {
          fake.reply = reply
          expect(yield* unavailable(verifier(fake.baseUrl).verify("P1_token", ip))).toBe(message)
        }
        expect(fake.problems).toEqual([])
      })
  )

  it.scoped("gives up after the time limit on a provider that never answers", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      fake.reply = SiteVerifyFake.hang
      const message = yield* unavailable(
        verifier(fake.baseUrl, { timeout: Duration.millis(100) }).verify("P1_token", ip)
      )
      expect(message).toBe("no answer within 100ms")
    })
  )

  it.effect("gives no verdict when the provider cannot be reached", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const message = yield* unavailable(verifier(`http://127.0.0.1:${port}`).verify("P1_token", ip))
      expect(message).toMatch(/^could not reach 127\.0\.0\.1: .*ECONNREFUSED/)
    })
  )

  it.scoped("does not post to a provider at an address the outbound guard refuses", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      // The fake's loopback address, without the private addresses the other tests allow.
      const withoutAllowance = HCaptcha.make({
        secret: Redacted.make(secret),
        timeout: Duration.seconds(5),
        baseUrl: fake.baseUrl
      })
      const message = yield* unavailable(withoutAllowance.verify("P1_token", ip))
      expect(message).toBe("only https destinations are contacted")
      expect(fake.received).toEqual([])
    })
  )

  it.scoped("keeps the secret out of its errors and its span", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      fake.reply = SiteVerifyFake.answer(502, secret)
      const spans = yield* spansOf(verifier(fake.baseUrl).verify("P1_token", ip))
      expect(spans).toEqual([{ name: "HCaptcha.verify", attributes: { "captcha.provider": "hcaptcha" } }])
      const failure = yield* Effect.flip(verifier(fake.baseUrl).verify("P1_token", ip))
      expect(JSON.stringify(failure)).not.toContain(secret)
      expect(String(failure)).not.toContain(secret)
    })
  )
})

describe("hCaptcha through CaptchaProviders and Captcha.check", () => {
  it.scoped("answers each verdict as Supabase Auth does", () =>
    Effect.gen(function* () {
      const fake = yield* HCaptchaFake.start(secret)
      const layer = CaptchaProviders.layer(
        Option.some({
          provider: "hcaptcha",
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
      expect(yield* check(" P1_token ")).toBe("passed")
      expect(fake.received.map((request) => request.fields[1])).toEqual([["response", "P1_token"]])
      expect(yield* check(undefined)).toEqual([
        "captcha_failed",
        "captcha protection: request disallowed (no captcha_token found)"
      ])
      fake.reply = SiteVerifyFake.refuse(["invalid-input-response"])
      expect(yield* check("P1_token")).toEqual([
        "captcha_failed",
        "captcha protection: request disallowed (invalid-input-response)"
      ])
      fake.reply = SiteVerifyFake.answer(503, "down")
      expect(yield* check("P1_token")).toEqual(["unexpected_failure", "captcha verification process failed"])
    })
  )
})
