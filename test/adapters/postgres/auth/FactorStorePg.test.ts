import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { Transactions } from "../../../../application/auth/ports/Transactions.js"
import { defaultLimits } from "../../../../domain/auth/Factor.js"
import * as RecoveryCodes from "../../../../domain/auth/RecoveryCodes.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import {
  challengeOf,
  codesOf,
  digest,
  factorOf,
  storedUser
} from "../../contract/auth/FactorStoreContract.js"

const HashRow = Schema.Struct({ codeHash: Schema.String })
const OtpRow = Schema.Struct({ otpCodeHash: Schema.String })

const soon = Time.plus(Fixtures.t0, "1 minute")

for (const target of ["pglite", "server"] as const) {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer(target))), {
    timeout: "60 seconds"
  })(`factor store on ${TestDatabase.describeTarget(target)}`, (it) =>
    describe("FactorStorePg", () => {
      it.effect("a challenge used in a transaction that fails is usable again; one that commits, not", () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const transactions = yield* Transactions
          const factor = factorOf(yield* storedUser)
          yield* store.enrol(factor, Option.none(), defaultLimits)
          const challenge = challengeOf(factor, Fixtures.t0)
          yield* store.createChallenge(challenge, Option.none())
          const failed = yield* Effect.either(
            transactions.run(
              Effect.gen(function* () {
                expect((yield* store.useChallenge(factor.id, challenge.id, soon, Option.some(1)))._tag).toBe(
                  "Used"
                )
                expect(
                  Option.isSome(yield* store.markVerified(factor.userId, factor.id, soon, Option.none()))
                ).toBe(true)
                return yield* Effect.fail("the session was not raised")
              })
            )
          )
          expect(failed._tag).toBe("Left")
          expect(
            Option.map(yield* store.find(factor.userId, factor.id), (found) => found.factor.status)
          ).toEqual(Option.some("unverified"))
          // The step went back with the challenge: the same step is accepted again.
          yield* transactions.run(store.useChallenge(factor.id, challenge.id, soon, Option.some(1)))
          expect(yield* store.useChallenge(factor.id, challenge.id, soon, Option.none())).toEqual({
            _tag: "Gone"
          })
        })
      )

      it.effect("a recovery-code attempt inside a transaction: a rollback gives the code back", () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const transactions = yield* Transactions
          const userId = yield* storedUser
          const codes = codesOf(RecoveryCodes.setSize)
          yield* store.createRecoveryCodes(
            factorOf(userId, { factorType: "recovery_code", status: "verified" }),
            codes.map(digest)
          )
          const code = Option.some(digest(codes[0] ?? ""))
          const policy = RecoveryCodes.lockoutPolicy
          yield* Effect.either(
            transactions.run(
              Effect.flatMap(store.attemptRecoveryCode(userId, code, policy, soon), () =>
                Effect.fail("rolled back")
              )
            )
          )
          const again = yield* transactions.run(store.attemptRecoveryCode(userId, code, policy, soon))
          expect(Option.map(again, ({ outcome }) => outcome._tag)).toEqual(Option.some("Accepted"))
        })
      )

      it.effect("codes are stored as digests only; a name left NULL by an import reads as blank", () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const sql = yield* SqlClient.SqlClient
          const userId = yield* storedUser
          const set = factorOf(userId, { factorType: "recovery_code", status: "verified" })
          const codes = codesOf(3)
          yield* store.createRecoveryCodes(set, codes.map(digest))
          const stored =
            yield* sql`SELECT code_hash FROM auth.mfa_recovery_codes WHERE factor_id = ${set.id}`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(HashRow)))
            )
          expect(stored.map((row) => row.codeHash).sort()).toEqual(codes.map(digest).sort())

          const phone = factorOf(userId, { factorType: "phone", phone: Option.some(Fixtures.phone()) })
          yield* store.enrol(phone, Option.none(), defaultLimits)
          const challenge = challengeOf(phone, soon, { otpCodeHash: Option.some(digest("123456")) })
          yield* store.createChallenge(challenge, Option.none())
          const otp =
            yield* sql`SELECT otp_code_hash FROM auth.mfa_challenges WHERE id = ${challenge.id}`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(OtpRow)))
            )
          expect(otp).toEqual([{ otpCodeHash: digest("123456") }])

          const imported = randomUUID()
          yield* sql`INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at)
                     VALUES (${imported}, ${userId}, NULL, 'totp', 'verified', ${Fixtures.t0}, ${Fixtures.t0})`
          const listed = (yield* store.list(userId)).find((factor) => factor.id === imported)
          expect(listed?.friendlyName).toBe("")
        })
      )
    })
  )
}
