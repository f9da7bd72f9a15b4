import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { updateFactor } from "../../../../application/auth/admin/UpdateFactor.js"
import { enrollFactor } from "../../../../application/auth/EnrollFactor.js"
import { request, signedInUser, totp, world } from "../support/Factors.js"
import { describedFailureOf, failureOf } from "../support/Failure.js"

const rename = (friendlyName: string) => ({ friendlyName: Option.some(friendlyName), phone: Option.none() })

describe("admin UpdateFactor (PUT /admin/users/{user_id}/factors/{factor_id}), on memory adapters", () => {
  it.effect("renames a factor; a name another factor of the user has is a conflict", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const id = yield* totp(signedIn, "old")
      yield* totp(signedIn, "taken")
      expect((yield* updateFactor(signedIn.user.id, id, rename("new"))).friendlyName).toBe("new")
      expect(yield* describedFailureOf(updateFactor(signedIn.user.id, id, rename("taken")))).toBe(
        'mfa_factor_name_conflict: A factor with the friendly name "taken" for this user already exists'
      )
      // Nothing given: nothing changes.
      const same = yield* updateFactor(signedIn.user.id, id, {
        friendlyName: Option.none(),
        phone: Option.none()
      })
      expect(same.friendlyName).toBe("new")
    }).pipe(Effect.provide(world()))
  )

  it.effect("changes a phone factor's number, E.164 checked; ignores a number for another type", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const phone = yield* enrollFactor(
        signedIn,
        request("phone", { phone: "15555550100", friendlyName: "p" })
      )
      const changed = yield* updateFactor(signedIn.user.id, phone.factor.id, {
        friendlyName: Option.none(),
        phone: Option.some("+1 555 555 0199")
      })
      expect(changed.phone).toEqual(Option.some("15555550199"))
      expect(
        yield* describedFailureOf(
          updateFactor(signedIn.user.id, phone.factor.id, {
            friendlyName: Option.none(),
            phone: Option.some("12-34")
          })
        )
      ).toBe("validation_failed: Invalid phone number format (E.164 required)")
      const app = yield* totp(signedIn, "app")
      const unchanged = yield* updateFactor(signedIn.user.id, app, {
        friendlyName: Option.none(),
        phone: Option.some("15555550100")
      })
      expect(unchanged.phone).toEqual(Option.none())
      expect(yield* failureOf(updateFactor(signedIn.user.id, "nope", rename("x")))).toBe("validation_failed")
    }).pipe(Effect.provide(world()))
  )
})
