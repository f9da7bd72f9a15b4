import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { findUser, parseId } from "../../../../application/auth/admin/FindUser.js"
import { enrolled, services } from "../support/Factors.js"
import { failureOf } from "../support/Failure.js"
import { signedUp } from "../support/Scenarios.js"

describe("FindUser (GET /admin/users/{user_id}), on memory adapters", () => {
  it.effect(
    "finds a user with their identities; an unknown id is user_not_found, a malformed one refused",
    () =>
      Effect.gen(function* () {
        const grant = yield* signedUp()
        const found = yield* findUser(grant.user.id)
        expect(found.user.id).toBe(grant.user.id)
        expect(found.identities.map((identity) => identity.provider)).toEqual(["email"])
        expect(found.factors).toEqual([])
        // The user's factors come with it, as Supabase Auth loads them with the user.
        const { factor } = yield* enrolled(grant.user.id, "totp")
        expect((yield* findUser(grant.user.id)).factors).toEqual([factor])
        const unknown = yield* parseId(crypto.randomUUID())
        expect(yield* failureOf(findUser(unknown))).toBe("user_not_found")
        expect(yield* failureOf(parseId("not-a-uuid"))).toBe("validation_failed")
      }).pipe(Effect.provide(services()))
  )
})
