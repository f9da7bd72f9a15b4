import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import { findUser } from "../../../../application/auth/admin/FindUser.js"
import { signInWithPassword } from "../../../../application/auth/SignInWithPassword.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { failureOf } from "../support/Failure.js"
import { client, freshEmail, password, signedUp } from "../support/Scenarios.js"

describe("DeleteUser (DELETE /admin/users/{user_id}), on memory adapters", () => {
  it.effect("deletes a user, who can no longer sign in; a second delete finds nobody", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const grant = yield* signedUp(email)
      yield* deleteUser(grant.user.id, false)
      expect(yield* failureOf(findUser(grant.user.id))).toBe("user_not_found")
      expect(yield* failureOf(signInWithPassword({ email, phone: "", password, client }))).toBe(
        "invalid_credentials"
      )
      expect(yield* failureOf(deleteUser(grant.user.id, false))).toBe("user_not_found")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("a soft delete keeps the row but signs the user out of every way in", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const grant = yield* signedUp(email)
      yield* deleteUser(grant.user.id, true)
      expect(yield* failureOf(signInWithPassword({ email, phone: "", password, client }))).toBe(
        "invalid_credentials"
      )
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
