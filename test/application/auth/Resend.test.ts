import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { resend } from "../../../application/auth/Resend.js"
import { signup } from "../../../application/auth/Signup.js"
import { verify } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf } from "./support/Failure.js"
import { confirmationCodes } from "./support/Scenarios.js"

/** Sign-up needs a confirmation; the settings space two mails 60 s apart and keep links a day. */
const services = MemoryServices.layer({ mailerAutoconfirm: false })

const client = { userAgent: Option.none(), ip: Option.none() }

describe("Resend (POST /resend) of a sign-up confirmation, on memory adapters under TestClock", () => {
  it.effect(
    "a resend waits for the spacing; a code expires with its lifetime; a confirmed user gets no more mail",
    () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const email = `${crypto.randomUUID()}@example.com`
        const signedUp = yield* signup(MemoryServices.emailSignup(email, "correct horse battery staple"))
        expect(signedUp._tag).toBe("Created")
        const [first] = yield* confirmationCodes(email)
        expect(first).toMatch(/^\d{6}$/)

        const again = {
          type: "signup",
          email,
          phone: "",
          redirectTo: "",
          codeChallenge: "",
          codeChallengeMethod: ""
        }
        expect(yield* describedFailureOf(resend(again))).toBe(
          "over_email_send_rate_limit: For security purposes, you can only request this after 60 seconds."
        )
        yield* TestClock.adjust(Duration.seconds(59))
        expect(yield* describedFailureOf(resend(again))).toBe(
          "over_email_send_rate_limit: For security purposes, you can only request this after 1 seconds."
        )
        expect(yield* confirmationCodes(email)).toEqual([])
        yield* TestClock.adjust(Duration.seconds(1))
        expect(yield* describedFailureOf(resend(again))).toBe("ok")
        const [second] = yield* confirmationCodes(email)
        expect(second).toMatch(/^\d{6}$/)

        const byCode = (token: string | undefined) =>
          verify({ type: "signup", token: token ?? "", tokenHash: "", email, phone: "", client })
        // The first code was replaced by the second.
        if (first !== second)
          expect(yield* describedFailureOf(byCode(first))).toBe(
            "otp_expired: Token has expired or is invalid"
          )
        // A day later the second has expired too.
        yield* TestClock.adjust(Duration.days(1))
        expect(yield* describedFailureOf(byCode(second))).toBe("otp_expired: Token has expired or is invalid")

        yield* TestClock.adjust(Duration.minutes(1))
        expect(yield* describedFailureOf(resend(again))).toBe("ok")
        const [third] = yield* confirmationCodes(email)
        const verified = yield* byCode(third)
        if (verified._tag !== "Session") return expect.unreachable("a confirmation is no email change")
        const grant = verified.grant
        expect(Option.isSome(grant.user.emailConfirmedAt)).toBe(true)
        const stored = yield* Effect.flatMap(UserRepository, (users) =>
          users.findByEmail(grant.user.email.pipe(Option.getOrThrow))
        )
        expect(Option.isSome(Option.flatMap(stored, (user) => user.emailConfirmedAt))).toBe(true)

        yield* TestClock.adjust(Duration.hours(1))
        expect(yield* describedFailureOf(resend(again))).toBe("ok")
        expect(yield* confirmationCodes(email)).toEqual([])
      }).pipe(Effect.provide(services))
  )
})
