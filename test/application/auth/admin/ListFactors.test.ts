import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { listFactors } from "../../../../application/auth/admin/ListFactors.js"
import { UserId } from "../../../../domain/Ids.js"
import { signedInUser, totp, world } from "../support/Factors.js"
import { failureOf } from "../support/Failure.js"

describe("admin ListFactors (GET /admin/users/{user_id}/factors), on memory adapters", () => {
  it.effect("lists a user's factors oldest first, none as an empty list", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      expect(yield* listFactors(signedIn.user.id)).toEqual([])
      const first = yield* totp(signedIn, "one")
      yield* TestClock.adjust(Duration.seconds(1))
      const second = yield* totp(signedIn, "two")
      expect((yield* listFactors(signedIn.user.id)).map((factor) => factor.id)).toEqual([first, second])
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers user_not_found for an unknown user", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(listFactors(UserId.make(crypto.randomUUID())))).toBe("user_not_found")
    }).pipe(Effect.provide(world()))
  )
})
