import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { inviteUser } from "../../../../application/auth/admin/InviteUser.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { freshEmail, mailsTo, signedUp } from "../support/Scenarios.js"

const inviting = (email: string) => inviteUser({ email, data: {}, redirectTo: "" })

describe("InviteUser (POST /invite), on memory adapters", () => {
  it.effect("makes an invited user without a password and mails the invitation, again on a second call", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const invited = yield* inviting(email)
      expect(Option.isSome(invited.user.invitedAt)).toBe(true)
      expect(Option.isNone(invited.user.emailConfirmedAt)).toBe(true)
      expect((yield* mailsTo(email)).map((mail) => mail.kind)).toEqual(["invite"])
      yield* inviting(email)
      expect((yield* mailsTo(email)).map((mail) => mail.kind)).toEqual(["invite"])
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses a confirmed user's address", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      yield* signedUp(email)
      expect(yield* failureOf(inviting(email))).toBe("email_exists")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
