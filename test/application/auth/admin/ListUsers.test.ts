import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { listUsers } from "../../../../application/auth/admin/ListUsers.js"
import { ensureSigningKey } from "../../../../application/auth/EnsureSigningKey.js"
import { signup } from "../../../../application/auth/Signup.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { enrolled, services } from "../support/Factors.js"

describe("the admin list on memory adapters under TestClock", () => {
  it.effect("orders by sign-up time either way and filters by address or full name", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const signUp = (email: string, fullName: string) =>
        Effect.gen(function* () {
          const outcome = yield* signup({
            ...MemoryServices.emailSignup(email, "correct horse battery staple"),
            data: { full_name: fullName }
          })
          // Each a minute after the one before: created_at decides the order.
          yield* TestClock.adjust(Duration.minutes(1))
          return outcome._tag === "SignedIn" ? outcome.grant.user.id : outcome.user.id
        })
      const first = yield* signUp("first@example.com", "Ada Lovelace")
      const second = yield* signUp("second@example.com", "Grace Hopper")
      const third = yield* signUp("100%_sure@example.com", "Ada Byron")

      const ids = (order: "asc" | "desc", filter: string, page = 1, perPage = 10) =>
        Effect.map(listUsers({ page, perPage, order, filter }), (listed) => [
          listed.users.map(({ user }) => user.id),
          listed.total
        ])
      expect(yield* ids("desc", "")).toEqual([[third, second, first], 3])
      expect(yield* ids("asc", "")).toEqual([[first, second, third], 3])
      expect(yield* ids("desc", "ADA")).toEqual([[third, first], 2])
      expect(yield* ids("asc", "ada", 2, 1)).toEqual([[third], 2])
      expect(yield* ids("desc", "SECOND@")).toEqual([[second], 1])
      expect(yield* ids("desc", "%_")).toEqual([[third], 1])

      // Each user comes with their identities and their factors.
      const { factor } = yield* enrolled(second, "totp")
      const listed = yield* listUsers({ page: 1, perPage: 10, order: "asc", filter: "" })
      expect(
        listed.users.map(({ factors, identities }) => [
          identities.map((identity) => identity.provider),
          factors.map((one) => one.id)
        ])
      ).toEqual([
        [["email"], []],
        [["email"], [factor.id]],
        [["email"], []]
      ])
    }).pipe(Effect.provide(services()))
  )
})
