import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
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

  it.effect("gives the user the identity's claims as metadata, the sign-up's data after them", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = freshEmail()
      const data = { full_name: "Ada", email: "not-mine@example.com", email_verified: true }
      const outcome = yield* signup({ ...MemoryServices.emailSignup(email, password), data })
      if (outcome._tag !== "Created") return expect.unreachable("a confirmation is needed")
      // The data cannot speak for the address: the claims come first, as Supabase Auth merges them.
      expect(outcome.user.userMetadata).toEqual({
        sub: outcome.user.id,
        email,
        email_verified: false,
        phone_verified: false,
        full_name: "Ada"
      })
      const byPhone = yield* signup({
        ...MemoryServices.emailSignup("", password),
        phone: "+15555550123",
        data: { theme: "dark" }
      })
      if (byPhone._tag !== "Created") return expect.unreachable("a confirmation is needed")
      // No number in it: Supabase Auth's sign-up claims name only the subject and the address.
      expect(byPhone.user.userMetadata).toEqual({
        sub: byPhone.user.id,
        email_verified: false,
        phone_verified: false,
        theme: "dark"
      })
    }).pipe(Effect.provide(MemoryServices.layer({ mailerAutoconfirm: false, smsAutoconfirm: false })))
  )

  it.effect("stamps the new identity's last sign-in at its creation, signed in or not", () =>
    Effect.gen(function* () {
      const outcome = yield* signup(MemoryServices.emailSignup(freshEmail(), password))
      if (outcome._tag !== "Created") return expect.unreachable("a confirmation is needed")
      const now = new Date(yield* Clock.currentTimeMillis)
      // Supabase Auth's new identities carry their creation as the last sign-in.
      expect(outcome.identities.map((identity) => identity.lastSignInAt)).toEqual([Option.some(now)])
      const stored = yield* Effect.flatMap(UserRepository, (users) => users.identitiesOf(outcome.user.id))
      expect(stored.map((identity) => identity.lastSignInAt)).toEqual([Option.some(now)])
      expect(Option.isNone(outcome.user.lastSignInAt)).toBe(true)
    }).pipe(Effect.provide(MemoryServices.layer({ mailerAutoconfirm: false })))
  )

  it.effect("under autoconfirm the address is verified in the metadata at once", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const outcome = yield* signup(MemoryServices.emailSignup(freshEmail(), password))
      if (outcome._tag !== "SignedIn") return expect.unreachable("autoconfirm signs in")
      expect(outcome.grant.user.userMetadata).toMatchObject({ email_verified: true, phone_verified: false })
    }).pipe(Effect.provide(MemoryServices.layer()))
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
