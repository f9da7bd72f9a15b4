import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { PasskeyStore } from "../../../../application/auth/ports/PasskeyStore.js"
import { Transactions } from "../../../../application/auth/ports/Transactions.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"
import { storedUser } from "../../contract/auth/FactorStoreContract.js"
import { challengeOf, passkeyOf } from "../../contract/auth/PasskeyStoreContract.js"

const BytesRow = Schema.Struct({ credentialId: Schema.String, publicKey: Schema.String })
const SessionDataRow = Schema.Struct({ sessionData: Schema.String })

for (const target of ["pglite", "server"] as const) {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer(target))), {
    timeout: "60 seconds"
  })(`passkey store on ${TestDatabase.describeTarget(target)}`, (it) =>
    describe("PasskeyStorePg", () => {
      it.effect("a challenge taken in a transaction that fails is there again; one that commits, not", () =>
        Effect.gen(function* () {
          const store = yield* PasskeyStore
          const transactions = yield* Transactions
          const userId = yield* storedUser
          const challenge = challengeOf(Option.some(userId), Fixtures.t0)
          yield* store.createChallenge(challenge)
          const take = store.takeChallenge(challenge.id, "registration", Option.some(userId))
          const failed = yield* Effect.either(
            transactions.run(
              Effect.gen(function* () {
                expect(yield* take).toEqual(Option.some(challenge))
                yield* store.register(passkeyOf(userId), 1)
                return yield* Effect.fail("the passkey was not answered")
              })
            )
          )
          expect(failed._tag).toBe("Left")
          // The registration went with the transaction: the limit of one still has room.
          expect(yield* store.list(userId)).toEqual([])
          expect(yield* transactions.run(take)).toEqual(Option.some(challenge))
          expect(yield* take).toEqual(Option.none())
        })
      )

      it.effect("a refused registration inside a transaction leaves the transaction usable", () =>
        Effect.gen(function* () {
          const store = yield* PasskeyStore
          const transactions = yield* Transactions
          const userId = yield* storedUser
          const first = passkeyOf(userId)
          yield* store.register(first, 5)
          const outcome = yield* transactions.run(
            Effect.gen(function* () {
              const taken = yield* Effect.flip(
                store.register(passkeyOf(userId, { credentialId: first.credentialId }), 5)
              )
              // The unique violation rolled back to the registration's savepoint only.
              const second = passkeyOf(userId)
              yield* store.register(second, 5)
              return { taken: taken._tag, second }
            })
          )
          expect(outcome.taken).toBe("CredentialTaken")
          expect(yield* store.list(userId)).toEqual(
            [first, outcome.second].sort((a, b) => a.id.localeCompare(b.id))
          )
        })
      )

      it.effect("credential ids and keys are stored as their bytes, challenges as digests only", () =>
        Effect.gen(function* () {
          const store = yield* PasskeyStore
          const sql = yield* SqlClient.SqlClient
          const passkey = passkeyOf(yield* storedUser)
          yield* store.register(passkey, 5)
          // As Supabase Auth stores them, so that its rows import as they are.
          const bytes = yield* sql`
            SELECT encode(credential_id, 'hex') AS credential_id, encode(public_key, 'hex') AS public_key
            FROM auth.webauthn_credentials WHERE id = ${passkey.id}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(BytesRow)))
          )
          expect(bytes).toEqual([
            {
              credentialId: Buffer.from(passkey.credentialId, "base64url").toString("hex"),
              publicKey: Buffer.from(passkey.publicKey, "base64url").toString("hex")
            }
          ])

          const challenge = challengeOf(Option.none(), Fixtures.t0)
          yield* store.createChallenge(challenge)
          const stored = yield* sql`
            SELECT session_data::text AS session_data FROM auth.webauthn_challenges
            WHERE id = ${challenge.id} AND user_id IS NULL AND challenge_type = 'authentication'`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(SessionDataRow)))
          )
          expect(stored.map((row) => JSON.parse(row.sessionData))).toEqual([
            {
              type: "request",
              challengeHash: challenge.ceremony.challengeHash,
              userVerification: "preferred"
            }
          ])
        })
      )
    })
  )
}
