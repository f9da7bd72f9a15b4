import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { AuthTables } from "../../../../adapters/postgres/auth/AuthTables.js"
import * as RefreshTokens from "../../../../adapters/postgres/auth/tables/RefreshTokens.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as Session from "../../../../domain/auth/Session.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

/**
 * The shared rotation statement and a sign-out of others lock a user's sessions in one order,
 * id order. The test forces the interleaving that deadlocked when the rotation updated its
 * sessions in the order it met them: a transaction holds session A; the sign-out (which locks A,
 * then B) queues on A; the rotation of B's and A's tokens, B first and B stored first, queues
 * too. Released, the sign-out takes A and then wants B — which the old rotation held while it
 * waited for A (PostgreSQL: 40P01). Locking in id order, the rotation waits for A before it
 * takes B, and both end.
 */
describe.skipIf(TestDatabase.isEmbedded("server"))("the rotation statement's lock order", () => {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer("server"))), {
    timeout: "60 seconds"
  })("on PostgreSQL", (it) => {
    it.effect("a batched rotation beside a sign-out of others: neither deadlocks", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { name } = yield* AuthTables
        const sessions = yield* SessionStore
        const user = Fixtures.user()
        yield* Effect.flatMap(UserRepository, (users) =>
          users.insert(user, [Fixtures.emailIdentity(user)], Option.none())
        )
        const [a, b] = [randomUUID(), randomUUID()].sort().map((id) => Session.SessionId.make(id))
        if (a === undefined || b === undefined) return expect.unreachable()
        const started = (id: Session.SessionId) =>
          Effect.gen(function* () {
            const token = Fixtures.refreshToken()
            yield* sessions.start(Fixtures.session(user.id, Fixtures.t0, { id }), token.hash)
            return token
          })
        // B stored first: a scan of the table meets it before A.
        const tokenOfB = yield* started(b)
        const tokenOfA = yield* started(a)
        const kept = Fixtures.session(user.id)
        yield* sessions.start(kept, Fixtures.refreshToken().hash)

        const release = yield* TestDatabase.holdingRows(
          `SELECT id FROM ${name("sessions")} WHERE id = $1 FOR UPDATE`,
          [a]
        )
        const later = Time.plus(Fixtures.t0, "1 hour")
        const signOut = yield* Effect.fork(sessions.revokeOthers(user.id, kept.id, later))
        yield* TestDatabase.lockWaitOrEnd(signOut)
        // One statement for both refreshes, as a batch of them runs, B's first.
        const rotation = yield* Effect.fork(
          sql.unsafe(
            RefreshTokens.rotateText(name),
            RefreshTokens.rotateParameters(
              [tokenOfB, tokenOfA].map((token) => ({
                presented: token.hash,
                child: Fixtures.refreshToken().hash,
                sealed: Option.none(),
                cutoffs: Session.noCutoffs,
                now: later
              }))
            )
          )
        )
        yield* TestDatabase.lockWaitOrEnd(rotation, 2)
        yield* release

        const ended = yield* Fiber.await(signOut)
        const rotated = yield* Fiber.await(rotation)
        expect(Exit.isSuccess(ended) ? ended.value : ended.cause.toString()).toBe(2)
        // The sign-out came first: the rotation found both sessions ended and rotated none.
        expect(Exit.isSuccess(rotated) ? rotated.value.length : rotated.cause.toString()).toBe(0)
        for (const id of [a, b]) {
          expect(Option.map(yield* sessions.findById(id), (session) => session.generation)).toEqual(
            Option.some(0)
          )
        }
      })
    )
  })
})
