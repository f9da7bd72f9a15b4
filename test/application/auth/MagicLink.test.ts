import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { Email } from "../../../domain/User.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { freshEmail, mailsTo, signedUp } from "./support/Scenarios.js"

const asking = (email: string, createUser = true) =>
  sendMagicLink({ email, createUser, data: {}, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })

describe("MagicLink (POST /otp and /magiclink by mail), on memory adapters", () => {
  it.effect("a confirmed user gets a magic link; a new address, with create_user, a confirmation", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      yield* signedUp(email)
      yield* mailsTo(email)
      yield* asking(email)
      expect((yield* mailsTo(email)).map((mail) => mail.kind)).toEqual(["magic_link"])
      // A magic link is Supabase Auth's recovery token: the user records it as `recovery_sent_at`.
      const owner = yield* Effect.flatMap(UserRepository, (users) => users.findByEmail(Email.make(email)))
      expect(Option.flatMap(owner, (user) => user.recoverySentAt)).toEqual(Option.some(new Date(0)))
      const stranger = freshEmail()
      yield* asking(stranger)
      expect((yield* mailsTo(stranger)).map((mail) => mail.kind)).toEqual(["confirmation"])
      // Without create_user an unknown address is answered alike, and mailed nothing.
      const nobody = freshEmail()
      expect(yield* failureOf(asking(nobody, false))).toBe("ok")
      expect(yield* mailsTo(nobody)).toEqual([])
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses a request without an address, and any while email sign-in is off", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(asking(""))).toBe("validation_failed")
      expect(
        yield* failureOf(
          asking(freshEmail()).pipe(Effect.provide(MemoryServices.layer({ emailEnabled: false })))
        )
      ).toBe("email_provider_disabled")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
