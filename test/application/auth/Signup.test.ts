import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { signup } from "../../../application/auth/Signup.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { freshEmail, mailsTo, password } from "./support/Scenarios.js"

describe("Signup (POST /signup), on memory adapters", () => {
  it.effect("under autoconfirm signs the new user in; the same address again is refused", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = freshEmail()
      const outcome = yield* signup(MemoryServices.emailSignup(email, password))
      if (outcome._tag !== "SignedIn") return expect.unreachable("autoconfirm signs in")
      expect(Option.getOrThrow(outcome.grant.user.email)).toBe(email)
      expect(Option.isSome(outcome.grant.user.emailConfirmedAt)).toBe(true)
      expect(yield* failureOf(signup(MemoryServices.emailSignup(email, password)))).toBe(
        "user_already_exists"
      )
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("without autoconfirm makes an unconfirmed user and mails a confirmation", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const outcome = yield* signup(MemoryServices.emailSignup(email, password))
      if (outcome._tag !== "Created") return expect.unreachable("a confirmation is needed")
      expect(Option.isNone(outcome.user.emailConfirmedAt)).toBe(true)
      expect((yield* mailsTo(email)).map((mail) => mail.kind)).toEqual(["confirmation"])
    }).pipe(Effect.provide(MemoryServices.layer({ mailerAutoconfirm: false })))
  )

  it.effect("is refused while sign-ups are off, or sign-ups by address are", () =>
    Effect.gen(function* () {
      const refused = (overrides: Parameters<typeof MemoryServices.layer>[0]) =>
        failureOf(signup(MemoryServices.emailSignup(freshEmail(), password))).pipe(
          Effect.provide(MemoryServices.layer(overrides))
        )
      expect(yield* refused({ disableSignup: true })).toBe("signup_disabled")
      expect(yield* refused({ emailEnabled: false })).toBe("email_provider_disabled")
    })
  )
})
