import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { deleteUserPasskey } from "../../../../application/auth/admin/DeleteUserPasskey.js"
import { listPasskeys } from "../../../../application/auth/ListPasskeys.js"
import { UserId } from "../../../../domain/Ids.js"
import { signedInUser, totp, verified, world } from "../support/Factors.js"
import { describedFailureOf, failureOf } from "../support/Failure.js"
import { authenticator, registered } from "../support/Passkeys.js"

describe("admin DeleteUserPasskey (DELETE /admin/users/{user_id}/passkeys/{passkey_id}), on memory adapters", () => {
  it.effect("removes the user's passkey with no assurance level asked", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const passkey = yield* registered(signedIn, authenticator())
      yield* verified(signedIn, yield* totp(signedIn, "app"))
      expect((yield* deleteUserPasskey(signedIn.user.id, passkey.id)).id).toBe(passkey.id)
      expect(yield* listPasskeys(signedIn)).toEqual([])
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers 404s: no such user, a passkey of another user, an id that is not a UUID", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      const passkey = yield* registered(signedIn, authenticator())
      expect(yield* failureOf(deleteUserPasskey(UserId.make(crypto.randomUUID()), passkey.id))).toBe(
        "user_not_found"
      )
      expect(yield* describedFailureOf(deleteUserPasskey(other.user.id, passkey.id))).toBe(
        "validation_failed: Passkey not found"
      )
      expect(yield* failureOf(deleteUserPasskey(signedIn.user.id, "x"))).toBe("validation_failed")
      expect((yield* listPasskeys(signedIn)).length).toBe(1)
    }).pipe(Effect.provide(world()))
  )
})
