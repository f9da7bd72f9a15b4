import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { listUserPasskeys } from "../../../../application/auth/admin/ListUserPasskeys.js"
import * as Passkey from "../../../../domain/auth/Passkey.js"
import { UserId } from "../../../../domain/Ids.js"
import { signedInUser, world } from "../support/Factors.js"
import { failureOf } from "../support/Failure.js"
import { authenticator, registered } from "../support/Passkeys.js"

describe("admin ListUserPasskeys (GET /admin/users/{user_id}/passkeys), on memory adapters", () => {
  it.effect("lists a user's passkeys, [] for none, 404 for no such user", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      expect(yield* listUserPasskeys(signedIn.user.id)).toEqual([])
      const passkey = yield* registered(signedIn, authenticator())
      expect((yield* listUserPasskeys(signedIn.user.id)).map((found) => found.id)).toEqual([passkey.id])
      expect(yield* failureOf(listUserPasskeys(UserId.make(crypto.randomUUID())))).toBe("user_not_found")
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers passkey_disabled while PASSKEY_ENABLED is off", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(listUserPasskeys((yield* signedInUser()).user.id))).toBe("passkey_disabled")
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: false, maxPerUser: 10, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )
})
