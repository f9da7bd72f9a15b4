import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { signup } from "../../../application/auth/Signup.js"
import { verify } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf } from "./support/Failure.js"
import { confirmationCodes } from "./support/Scenarios.js"

/** Sign-up needs a confirmation; the settings space two mails 60 s apart and keep links a day. */
const services = MemoryServices.layer({ mailerAutoconfirm: false })

const client = { userAgent: Option.none(), ip: Option.none() }

describe("Verify (POST /verify) of a sign-up confirmation, on memory adapters under TestClock", () => {
  it.effect("the mailed code confirms the address and begins a session, once", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `${crypto.randomUUID()}@example.com`
      yield* signup(MemoryServices.emailSignup(email, "correct horse battery staple"))
      const [code] = yield* confirmationCodes(email)
      const byCode = verify({ type: "email", token: code ?? "", tokenHash: "", email, phone: "", client })
      const verified = yield* byCode
      if (verified._tag !== "Session") return expect.unreachable("a confirmation is no email change")
      expect(Option.isSome(verified.grant.user.emailConfirmedAt)).toBe(true)
      // Confirmed as Supabase Auth confirms: the metadata and the address's identity say so.
      expect(verified.grant.user.userMetadata).toMatchObject({ email, email_verified: true })
      const identities = yield* Effect.flatMap(UserRepository, (users) =>
        users.identitiesOf(verified.grant.user.id)
      )
      expect(identities.map((identity) => [identity.provider, identity.identityData.email_verified])).toEqual(
        [["email", true]]
      )
      expect(yield* describedFailureOf(byCode)).toBe("otp_expired: Token has expired or is invalid")
    }).pipe(Effect.provide(services))
  )

  it.effect("five wrong codes end the token: the right one no longer works", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `${crypto.randomUUID()}@example.com`
      yield* signup(MemoryServices.emailSignup(email, "correct horse battery staple"))
      const [code] = yield* confirmationCodes(email)
      const wrong = code === "000000" ? "111111" : "000000"
      for (let attempt = 0; attempt < 5; attempt++) {
        expect(
          yield* describedFailureOf(
            verify({ type: "email", token: wrong, tokenHash: "", email, phone: "", client })
          )
        ).toBe("otp_expired: Token has expired or is invalid")
      }
      expect(
        yield* describedFailureOf(
          verify({ type: "email", token: code ?? "", tokenHash: "", email, phone: "", client })
        )
      ).toBe("otp_expired: Token has expired or is invalid")
    }).pipe(Effect.provide(services))
  )
})
