import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { deleteFactor } from "../../../../application/auth/admin/DeleteFactor.js"
import { listFactors } from "../../../../application/auth/admin/ListFactors.js"
import { UserId } from "../../../../domain/Ids.js"
import { raisedBy, sessionOf, signedInUser, totp, twoSessions, verified, world } from "../support/Factors.js"
import { failureOf } from "../support/Failure.js"

describe("admin DeleteFactor (DELETE /admin/users/{user_id}/factors/{factor_id}), on memory adapters", () => {
  it.effect("deletes a verified factor without any assurance level and answers it", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const id = yield* totp(signedIn, "app")
      yield* verified(signedIn, id)
      const removed = yield* deleteFactor(signedIn.user.id, id)
      expect(removed.id).toBe(id)
      expect(removed.status).toBe("verified")
      expect(yield* listFactors(signedIn.user.id)).toEqual([])
    }).pipe(Effect.provide(world()))
  )

  it.effect("puts the sessions the factor raised back to aal1 and leaves the others", () =>
    Effect.gen(function* () {
      const { elsewhere, signedIn } = yield* twoSessions()
      const removed = yield* totp(signedIn, "app")
      const kept = yield* totp(signedIn, "phone app")
      yield* verified(signedIn, removed)
      yield* verified(signedIn, kept)
      yield* raisedBy(signedIn, removed)
      const other = yield* raisedBy(elsewhere, kept)
      yield* deleteFactor(signedIn.user.id, removed)
      const after = yield* sessionOf(signedIn)
      expect([after.aal, after.factorId]).toEqual(["aal1", Option.none()])
      expect(after.amr.some((entry) => entry.method === "totp")).toBe(false)
      expect(yield* sessionOf(elsewhere)).toEqual(other)
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers the path's refusals in Supabase Auth's order", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      const theirs = yield* totp(other, "app")
      expect(yield* failureOf(deleteFactor(UserId.make(crypto.randomUUID()), "nope"))).toBe("user_not_found")
      expect(yield* failureOf(deleteFactor(signedIn.user.id, "nope"))).toBe("validation_failed")
      expect(yield* failureOf(deleteFactor(signedIn.user.id, theirs))).toBe("mfa_factor_not_found")
    }).pipe(Effect.provide(world()))
  )
})
