import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Captcha from "../../../application/auth/Captcha.js"
import {
  CaptchaUnavailable,
  CaptchaVerifier,
  type Outcome,
  Passed,
  Refused
} from "../../../application/auth/ports/CaptchaVerifier.js"

/** Captcha on, with a verifier that answers `verdict` and records what it was asked. */
const enabled = (verdict: Effect.Effect<Outcome, CaptchaUnavailable>) => {
  const asked: Array<readonly [string, Option.Option<string>]> = []
  const layer = Layer.merge(
    Layer.succeed(Captcha.CaptchaSettings, { enabled: true }),
    Layer.succeed(CaptchaVerifier, {
      provider: "hcaptcha",
      verify: (token, remoteIp) =>
        Effect.zipRight(
          Effect.sync(() => asked.push([token, remoteIp])),
          verdict
        )
    })
  )
  return { asked, layer }
}

/** `passed`, or the code and message the refusal is answered with. */
const result = (token: string | undefined, remoteIp: Option.Option<string>) =>
  Captcha.check(token, remoteIp).pipe(
    Effect.either,
    Effect.map(
      Either.match({
        onLeft: (reason) => [ErrorResponse.describe(reason).code, ErrorResponse.describe(reason).message],
        onRight: () => "passed"
      })
    )
  )

const ip = Option.some("198.51.100.4")

describe("Captcha.check", () => {
  it.effect("lets every request through while captcha protection is off, without asking a verifier", () =>
    Effect.gen(function* () {
      // Captcha.disabled's verifier dies when asked, which would fail these.
      expect(yield* result(undefined, ip)).toBe("passed")
      expect(yield* result("", Option.none())).toBe("passed")
      expect(yield* result("P1_token", ip)).toBe("passed")
    }).pipe(Effect.provide(Captcha.disabled))
  )

  it.effect("passes a token the provider accepts, trimmed, with the client's address", () => {
    const captcha = enabled(Effect.succeed(Passed.make({})))
    return Effect.gen(function* () {
      expect(yield* result("\t P1_token \n", ip)).toBe("passed")
      expect(yield* result("P1_other", Option.none())).toBe("passed")
      expect(captcha.asked).toEqual([
        ["P1_token", ip],
        ["P1_other", Option.none()]
      ])
    }).pipe(Effect.provide(captcha.layer))
  })

  it.effect("refuses a request without a token before asking the provider", () => {
    const captcha = enabled(Effect.succeed(Passed.make({})))
    return Effect.gen(function* () {
      for (const token of [undefined, "", "   "]) {
        expect(yield* result(token, ip)).toEqual([
          "captcha_failed",
          "captcha protection: request disallowed (no captcha_token found)"
        ])
      }
      expect(captcha.asked).toEqual([])
    }).pipe(Effect.provide(captcha.layer))
  })

  it.effect("names the provider's error codes when it refuses the token", () =>
    Effect.gen(function* () {
      const twoCodes = enabled(
        Effect.succeed(Refused.make({ errorCodes: ["invalid-input-response", "expired"] }))
      )
      expect(yield* Effect.provide(result("P1_token", ip), twoCodes.layer)).toEqual([
        "captcha_failed",
        "captcha protection: request disallowed (invalid-input-response, expired)"
      ])
      // Supabase Auth prints an empty list as it is.
      const noCode = enabled(Effect.succeed(Refused.make({ errorCodes: [] })))
      expect(yield* Effect.provide(result("P1_token", ip), noCode.layer)).toEqual([
        "captcha_failed",
        "captcha protection: request disallowed ()"
      ])
    })
  )

  it.effect("refuses the request with a 500 when the provider gives no verdict, hiding why", () => {
    const captcha = enabled(Effect.fail(new CaptchaUnavailable({ message: "no answer within 10s" })))
    return Effect.gen(function* () {
      const failure = ErrorResponse.describe(yield* Effect.flip(Captcha.check("P1_token", ip)))
      expect([failure.code, failure.message]).toEqual([
        "unexpected_failure",
        "captcha verification process failed"
      ])
      expect(failure.message).not.toContain("10s")
      expect(captcha.asked).toHaveLength(1)
    }).pipe(Effect.provide(captcha.layer))
  })
})
