import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { Enrolments } from "../../../../application/auth/ports/Enrolments.js"
import { OneTimeTokenStore } from "../../../../application/auth/ports/OneTimeTokenStore.js"
import { Transactions } from "../../../../application/auth/ports/Transactions.js"
import { EmailExists, UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { enrolmentOf } from "../../contract/auth/EnrolmentsContract.js"

for (const target of ["pglite", "server"] as const) {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer(target))), {
    timeout: "60 seconds"
  })(`enrolments on ${TestDatabase.describeTarget(target)}`, (it) =>
    describe("one statement for the enrolments that arrive together", () => {
      it.effect("more enrolments at once than one statement takes: each written, its metadata as given", () =>
        Effect.gen(function* () {
          const enrolments = yield* Enrolments
          const users = yield* UserRepository
          const all = Array.from({ length: 300 }, (_, i) =>
            enrolmentOf(
              Fixtures.user({
                phone: i % 2 === 0 ? Option.some(Fixtures.phone()) : Option.none(),
                userMetadata: { camelCase: i, "with space": [true, null], nested: { snake_case: "x" } }
              })
            )
          )
          yield* Effect.forEach(all, ({ enrolment }) => enrolments.enrol(enrolment), {
            concurrency: "unbounded"
          })
          const found = yield* Effect.forEach(all, ({ enrolment }) => users.findById(enrolment.user.id), {
            concurrency: "unbounded"
          })
          expect(found).toEqual(all.map(({ enrolment }) => Option.some(enrolment.user)))
        })
      )

      it.effect("inside a transaction it sees the transaction's writes and rolls back with it", () =>
        Effect.gen(function* () {
          const enrolments = yield* Enrolments
          const users = yield* UserRepository
          const transactions = yield* Transactions
          const owner = Fixtures.user()
          const taken = enrolmentOf(Fixtures.user({ email: owner.email }))
          const fresh = enrolmentOf(Fixtures.user())
          const outcome = yield* transactions
            .run(
              Effect.gen(function* () {
                yield* users.insert(owner, [], Option.none())
                // Run shared, outside the transaction, this would not see the owner yet.
                const refused = yield* Effect.either(enrolments.enrol(taken.enrolment))
                yield* enrolments.enrol(fresh.enrolment)
                const seen = yield* users.findById(fresh.enrolment.user.id)
                return yield* Effect.fail({ _tag: "RolledBack", refused, seen } as const)
              })
            )
            .pipe(Effect.flip)
          if (outcome._tag !== "RolledBack") return expect.unreachable(outcome._tag)
          expect(outcome.refused).toEqual(
            Either.left(new EmailExists({ email: Option.getOrThrow(owner.email) }))
          )
          expect(outcome.seen).toEqual(Option.some(fresh.enrolment.user))
          expect(yield* users.findById(owner.id)).toEqual(Option.none())
          expect(yield* users.findById(fresh.enrolment.user.id)).toEqual(Option.none())
          const tokens = yield* OneTimeTokenStore
          expect(
            yield* tokens.useCode(
              fresh.enrolment.user.id,
              ["confirmation"],
              fresh.enrolment.token.codeHash,
              Fixtures.t0
            )
          ).toEqual({
            _tag: "None"
          })
        })
      )
    })
  )
}
