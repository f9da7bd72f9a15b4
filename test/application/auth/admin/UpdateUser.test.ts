import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import { UserId } from "../../../../domain/Ids.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { adminNoChange, freshEmail, signedUp } from "../support/Scenarios.js"

describe("UpdateUser (PUT /admin/users/{user_id}), on memory adapters", () => {
  it.effect("sets what it is given: app metadata and a new address, confirmed", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const email = freshEmail()
      const updated = yield* updateUser(grant.user.id, {
        ...adminNoChange,
        email,
        emailConfirm: true,
        appMetadata: Option.some({ plan: "pro" })
      })
      expect(Option.getOrThrow(updated.user.email)).toBe(email)
      expect(updated.user.appMetadata).toMatchObject({ plan: "pro" })
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses an unknown user, and an address another user has", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(updateUser(UserId.make(crypto.randomUUID()), adminNoChange))).toBe(
        "user_not_found"
      )
      const taken = yield* signedUp()
      const grant = yield* signedUp()
      const email = Option.getOrThrow(taken.user.email)
      expect(yield* failureOf(updateUser(grant.user.id, { ...adminNoChange, email }))).toBe("email_exists")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
