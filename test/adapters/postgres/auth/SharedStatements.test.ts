import { createHash, randomUUID } from "node:crypto"
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AuthStoragePg from "../../../../adapters/postgres/auth/AuthStoragePg.js"
import { OneTimeTokenStore } from "../../../../application/auth/ports/OneTimeTokenStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { Transactions } from "../../../../application/auth/ports/Transactions.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { OneTimeToken, OneTimeTokenId } from "../../../../domain/auth/OneTimeToken.js"
import * as Session from "../../../../domain/auth/Session.js"
import { SecretHash, UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import * as TestDatabase from "../../../support/TestDatabase.js"

/** The sign-ins of one test: users asked for at once, so that they share statements. */
const together = { concurrency: "unbounded" } as const

const signUp = (fields: Parameters<typeof Fixtures.user>[0] = {}) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const user = Fixtures.user({ phone: Option.some(Fixtures.phone()), ...fields })
    const identity = Fixtures.emailIdentity(user)
    yield* users.insert(user, [identity], Option.some(`$argon2id$${user.id}`))
    return { user, identity }
  })

/** A digest as the store keeps them, of any text. */
const digest = (text: string) => SecretHash.make(createHash("sha256").update(text).digest("hex"))

const codeFor = (userId: UserId, codeHash: SecretHash) =>
  new OneTimeToken({
    id: OneTimeTokenId.make(randomUUID()),
    userId,
    purpose: "magic_link",
    sentTo: "someone@example.com",
    linkHash: digest(`link ${randomUUID()}`),
    codeHash,
    failedAttempts: 0,
    createdAt: Fixtures.t0,
    expiresAt: Time.plus(Fixtures.t0, "1 hour"),
    usedAt: Option.none(),
    flowStateId: Option.none()
  })

for (const target of ["pglite", "server"] as const) {
  layer(AuthStoragePg.layer("").pipe(Layer.provideMerge(TestDatabase.authLayer(target))), {
    timeout: "60 seconds"
  })(`sign-in statements shared by concurrent requests on ${TestDatabase.describeTarget(target)}`, (it) =>
    describe("each request gets its own answer from a shared statement", () => {
      it.effect("users by address, number and id, and their password hashes", () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const signedUp = yield* Effect.forEach(Array.from({ length: 12 }), () => signUp())
          const byEmail = yield* Effect.forEach(
            [...signedUp.map(({ user }) => Option.getOrThrow(user.email)), Fixtures.email()],
            (email) => users.findByEmail(email),
            together
          )
          expect(byEmail).toEqual([...signedUp.map(({ user }) => Option.some(user)), Option.none()])
          const byPhone = yield* Effect.forEach(
            [...signedUp.map(({ user }) => Option.getOrThrow(user.phone)), Fixtures.phone()],
            (phone) => users.findByPhone(phone),
            together
          )
          expect(byPhone).toEqual([...signedUp.map(({ user }) => Option.some(user)), Option.none()])
          // An id in capitals names the same user, as PostgreSQL reads uuids.
          const byId = yield* Effect.forEach(
            [...signedUp.map(({ user }) => UserId.make(user.id.toUpperCase())), UserId.make(randomUUID())],
            (id) => users.findById(id),
            together
          )
          expect(byId).toEqual([...signedUp.map(({ user }) => Option.some(user)), Option.none()])
          const hashes = yield* Effect.forEach(
            signedUp.map(({ user }) => user.id),
            (id) => users.findPasswordHash(id),
            together
          )
          expect(hashes).toEqual(signedUp.map(({ user }) => Option.some(`$argon2id$${user.id}`)))
        })
      )

      it.effect("sessions started and sign-ins stamped together, one user twice and one unknown", () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const sessions = yield* SessionStore
          const signedUp = yield* Effect.forEach(Array.from({ length: 8 }), () => signUp())
          const at = Time.plus(Fixtures.t0, "1 hour")
          const started = signedUp.map(({ user }) => Fixtures.session(user.id, at))
          yield* Effect.forEach(
            started,
            (session) => sessions.start(session, Fixtures.refreshToken().hash),
            together
          )
          expect(
            yield* Effect.forEach(started, (session) => sessions.findById(session.id), together)
          ).toEqual(started.map(Option.some))

          const [first, ...others] = signedUp
          if (first === undefined) return expect.unreachable()
          const stamped = yield* Effect.forEach(
            [
              { id: first.user.id, identity: Option.some(first.identity.id) },
              { id: first.user.id, identity: Option.none() },
              ...others.map(({ user }) => ({ id: user.id, identity: Option.none() })),
              { id: UserId.make(randomUUID()), identity: Option.none() }
            ],
            ({ id, identity }) =>
              Effect.either(Effect.map(users.recordSignIn(id, identity, at), (shown) => shown.identities)),
            together
          )
          // The identity used is stamped, and every answer shows it as the stamp left it.
          const stampedIdentity = { ...first.identity, lastSignInAt: Option.some(at), updatedAt: at }
          expect(stamped[0]).toEqual(Either.right([stampedIdentity]))
          expect(stamped[1]).toEqual(Either.right([stampedIdentity]))
          expect(stamped.slice(2, -1)).toEqual(others.map(({ identity }) => Either.right([identity])))
          expect(Either.isLeft(stamped[stamped.length - 1] ?? Either.right([]))).toBe(true)
          for (const { user } of signedUp) {
            expect(Option.getOrThrow(yield* users.findById(user.id)).lastSignInAt).toEqual(Option.some(at))
          }
        })
      )

      it.effect("codes used together: one presentation of a code twice gets it, wrong ones get nothing", () =>
        Effect.gen(function* () {
          const tokens = yield* OneTimeTokenStore
          const signedUp = yield* Effect.forEach(Array.from({ length: 6 }), () => signUp())
          for (const { user } of signedUp)
            yield* tokens.issue(codeFor(user.id, digest(user.id)), Option.none())
          const at = Time.plus(Fixtures.t0, "1 minute")
          const uses = [
            ...signedUp.map(({ user }) => ({ userId: user.id, codeHash: digest(user.id) })),
            ...signedUp.slice(0, 2).map(({ user }) => ({ userId: user.id, codeHash: digest(user.id) })),
            ...signedUp.slice(2, 3).map(({ user }) => ({ userId: user.id, codeHash: digest("wrong") }))
          ]
          const outcomes = yield* Effect.forEach(
            uses,
            ({ userId, codeHash }) => tokens.useCode(userId, ["magic_link"], codeHash, at),
            together
          )
          const usedBy = (userId: UserId) =>
            outcomes.filter((outcome, i) => outcome._tag === "Used" && uses[i]?.userId === userId)
          for (const { user } of signedUp) expect(usedBy(user.id)).toHaveLength(1)
          expect(outcomes.filter((outcome) => outcome._tag === "Used")).toHaveLength(signedUp.length)
          const used = outcomes.find((outcome) => outcome._tag === "Used")
          expect(used?._tag === "Used" && Option.isSome(used.token.usedAt)).toBe(true)
        })
      )

      it.effect("inside a transaction they run on its connection and see what it wrote", () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const sessions = yield* SessionStore
          const transactions = yield* Transactions
          const user = Fixtures.user({ phone: Option.some(Fixtures.phone()) })
          const email = Option.getOrThrow(user.email)
          const session = Fixtures.session(user.id)
          const seen = yield* transactions
            .run(
              Effect.gen(function* () {
                yield* users.insert(user, [Fixtures.emailIdentity(user)], Option.some("$argon2id$x"))
                const found = yield* users.findByEmail(email)
                const hash = yield* users.findPasswordHash(user.id)
                yield* sessions.start(session, Fixtures.refreshToken().hash)
                // Shared, these would find no user yet: the session's reference and the stamp fail.
                yield* users.recordSignIn(user.id, Option.none(), Fixtures.t0)
                return yield* Effect.fail({ _tag: "RolledBack", found, hash } as const)
              })
            )
            .pipe(Effect.flip)
          if (seen._tag !== "RolledBack") return expect.unreachable(seen._tag)
          expect(seen.found).toEqual(Option.some(user))
          expect(seen.hash).toEqual(Option.some("$argon2id$x"))
          // Rolled back with the transaction: nothing was written on another connection.
          expect(yield* users.findByEmail(email)).toEqual(Option.none())
          expect(yield* sessions.findById(session.id)).toEqual(Option.none())
        })
      )

      it.effect("a refresh rotation inside a transaction runs on its connection and sees what it wrote", () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const sessions = yield* SessionStore
          const transactions = yield* Transactions
          const user = Fixtures.user()
          const session = Fixtures.session(user.id)
          const first = Fixtures.refreshToken()
          const child = Fixtures.refreshToken()
          const at = Time.plus(Fixtures.t0, "1 minute")
          const seen = yield* transactions
            .run(
              Effect.gen(function* () {
                yield* users.insert(user, [Fixtures.emailIdentity(user)], Option.none())
                yield* sessions.start(session, first.hash)
                // Shared, the rotation would find neither the session nor its token yet.
                const rotated = yield* sessions.rotate({
                  presented: first.hash,
                  child: child.hash,
                  sealed: Option.none(),
                  cutoffs: Session.noCutoffs,
                  now: at
                })
                // Still the transaction's: the child is the live token now.
                const locked = yield* sessions.lockPresented(child.hash)
                return yield* Effect.fail({ _tag: "RolledBack", rotated, locked } as const)
              })
            )
            .pipe(Effect.flip)
          if (seen._tag !== "RolledBack") return expect.unreachable(seen._tag)
          expect(Option.map(seen.rotated, (r) => [r.session.id, r.session.generation])).toEqual(
            Option.some([session.id, 1])
          )
          expect(Option.map(seen.locked, (p) => p.generation)).toEqual(Option.some(1))
          // Rolled back with the transaction: nothing was written on another connection.
          expect(yield* sessions.findById(session.id)).toEqual(Option.none())
          expect(
            yield* sessions.rotate({
              presented: first.hash,
              child: child.hash,
              sealed: Option.none(),
              cutoffs: Session.noCutoffs,
              now: at
            })
          ).toEqual(Option.none())
        })
      )
    })
  )
}
