import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import { findUser } from "../../../../application/auth/admin/FindUser.js"
import { enrollFactor } from "../../../../application/auth/EnrollFactor.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { PasskeyStore } from "../../../../application/auth/ports/PasskeyStore.js"
import { recover } from "../../../../application/auth/Recover.js"
import * as SendVerification from "../../../../application/auth/SendVerification.js"
import { signInWithPassword } from "../../../../application/auth/SignInWithPassword.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { request, signedInUser, world } from "../support/Factors.js"
import { failureOf } from "../support/Failure.js"
import { authenticator, registered } from "../support/Passkeys.js"
import { client, freshEmail, password, recoveryCode, signedUp } from "../support/Scenarios.js"

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

  it.effect("a soft delete ends the user's factors, passkeys and codes; the admin still reads them", () =>
    Effect.gen(function* () {
      const email = "soft@example.com"
      const signedIn = yield* signedInUser(email)
      yield* enrollFactor(signedIn, request("totp"))
      yield* registered(signedIn, authenticator())
      yield* recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })
      const code = yield* recoveryCode(email)
      yield* deleteUser(signedIn.user.id, true)
      expect(yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))).toEqual([])
      expect(yield* Effect.flatMap(PasskeyStore, (store) => store.list(signedIn.user.id))).toEqual([])
      // The recovery code is gone with the user's other one-time tokens.
      expect(yield* SendVerification.useCode(signedIn.user, ["recovery"], code, new Date(0))).toBe(false)
      const shown = yield* findUser(signedIn.user.id)
      expect([Option.isSome(shown.user.deletedAt), shown.user.email, shown.factors]).toEqual([
        true,
        Option.none(),
        []
      ])
      // Soft-deleted again: nothing to do, and no error, as in Supabase Auth.
      expect(yield* failureOf(deleteUser(signedIn.user.id, true))).toBe("ok")
    }).pipe(Effect.provide(world()))
  )
})
