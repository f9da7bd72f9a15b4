import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { generateLink } from "../../../../application/auth/admin/GenerateLink.js"
import { verify } from "../../../../application/auth/Verify.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { client, freshEmail, mailsTo, signedUp } from "../support/Scenarios.js"

const link = (type: string, email: string) =>
  generateLink({ type, email, newEmail: "", password: "", data: {}, redirectTo: "" })

describe("GenerateLink (POST /admin/generate_link), on memory adapters", () => {
  it.effect("a recovery link for a user, mailed to nobody, whose code signs in", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const grant = yield* signedUp(email)
      yield* mailsTo(email)
      const generated = yield* link("recovery", email)
      expect(generated.user.id).toBe(grant.user.id)
      expect(generated.verificationType).toBe("recovery")
      expect(generated.actionLink).toContain(generated.hashedToken)
      // The answer shows the user as written: the link's sending recorded.
      const now = new Date(yield* Clock.currentTimeMillis)
      expect(generated.user.recoverySentAt).toEqual(Option.some(now))
      expect((yield* link("magiclink", email)).user.recoverySentAt).toEqual(Option.some(now))
      expect(yield* mailsTo(email)).toEqual([])
      const verified = yield* verify({
        type: "recovery",
        token: generated.emailOtp,
        tokenHash: "",
        email,
        phone: "",
        client
      })
      expect(verified._tag).toBe("Session")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect(
    "an invitation's user has the data as metadata; a sign-up link adds its data to an unconfirmed user's",
    () =>
      Effect.gen(function* () {
        const email = freshEmail()
        const withData = (type: string, data: Record<string, unknown>, password = "") =>
          generateLink({ type, email, newEmail: "", password, data, redirectTo: "" })
        const invited = yield* withData("invite", { team: "blue" })
        // As Supabase Auth makes an invited user: the data alone, and none of it on the identity.
        expect(invited.user.userMetadata).toEqual({ team: "blue" })
        expect(invited.identities.map((identity) => identity.identityData)).toEqual([
          { sub: invited.user.id, email, email_verified: false, phone_verified: false }
        ])
        const again = yield* withData("signup", { plan: "pro" }, "correct horse battery staple")
        expect(again.user.id).toBe(invited.user.id)
        expect(again.user.userMetadata).toEqual({ team: "blue", plan: "pro" })
      }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses an unknown type, a recovery for nobody, and a sign-up for a confirmed address", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(link("bogus", freshEmail()))).toBe("validation_failed")
      expect(yield* failureOf(link("recovery", freshEmail()))).toBe("user_not_found")
      const email = freshEmail()
      yield* signedUp(email)
      expect(yield* failureOf(link("signup", email))).toBe("email_exists")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
