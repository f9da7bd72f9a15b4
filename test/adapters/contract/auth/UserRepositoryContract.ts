import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { defaultLimits } from "../../../../domain/auth/Factor.js"
import * as Session from "../../../../domain/auth/Session.js"
import { Identity } from "../../../../domain/Identity.js"
import { IdentityId, UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import type { User } from "../../../../domain/User.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"
import { factorOf } from "./FactorStoreContract.js"

/** A user with its email identity, stored. */
const signUp = (fields: Parameters<typeof Fixtures.user>[0] = {}) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    const user = Fixtures.user(fields)
    const identity = Fixtures.emailIdentity(user)
    yield* users.insert(user, [identity], Option.some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"))
    return { user, identity }
  })

const tagOf = <A, E extends { readonly _tag: string }>(result: Either.Either<A, E>) =>
  Either.match(result, { onLeft: (error) => error._tag, onRight: () => "ok" })

export const userRepositoryContract = (it: It) =>
  describe("UserRepository", () => {
    it.effect("stores a user with its identity and finds it by id, email and phone", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const phone = Fixtures.phone()
        const { user, identity } = yield* signUp({
          phone: Option.some(phone),
          userMetadata: { full_name: "Ada" }
        })
        expect(yield* users.findById(user.id)).toEqual(Option.some(user))
        expect(yield* users.findByEmail(Option.getOrThrow(user.email))).toEqual(Option.some(user))
        expect(yield* users.findByPhone(phone)).toEqual(Option.some(user))
        expect(yield* users.findById(UserId.make(randomUUID()))).toEqual(Option.none())
        expect(yield* users.findByEmail(Fixtures.email())).toEqual(Option.none())
        expect(yield* users.identitiesOf(user.id)).toEqual([identity])
      })
    )

    it.effect("reads a user with their identities together, for many users asked at once", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp({ userMetadata: { full_name: "Ada", nested: { a_b: 1 } } })
        const github = Fixtures.emailIdentity(user, {
          provider: "github",
          providerId: randomUUID(),
          identityData: { email: user.email.pipe(Option.getOrThrow), user_name: "ada" },
          createdAt: Time.plus(identity.createdAt, "1 second"),
          updatedAt: Time.plus(identity.createdAt, "1 second"),
          lastSignInAt: Option.some(Time.plus(identity.createdAt, "2 seconds"))
        })
        yield* users.addIdentity(github)
        const stored = yield* users.identitiesOf(user.id)
        expect(stored.map((linked) => linked.provider)).toEqual(["email", "github"])
        expect(yield* users.findWithIdentities(user.id)).toEqual(Option.some({ user, identities: stored }))

        const anonymous = Fixtures.user({ email: Option.none(), isAnonymous: true })
        yield* users.insert(anonymous, [], Option.none())
        const others = yield* Effect.forEach(Array.from({ length: 20 }), () => signUp())
        const unknown = UserId.make(randomUUID())
        // Asked at once, so that the Postgres adapter answers them from shared statements.
        const found = yield* Effect.forEach(
          [user.id, anonymous.id, unknown, ...others.map((other) => other.user.id)],
          (id) => users.findWithIdentities(id),
          { concurrency: "unbounded" }
        )
        expect(found[0]).toEqual(Option.some({ user, identities: stored }))
        expect(found[1]).toEqual(Option.some({ user: anonymous, identities: [] }))
        expect(found[2]).toEqual(Option.none())
        expect(found.slice(3)).toEqual(
          others.map((other) => Option.some({ user: other.user, identities: [other.identity] }))
        )

        yield* users.softDelete(user.id, Time.plus(identity.createdAt, "1 minute"))
        expect(yield* users.findWithIdentities(user.id)).toEqual(Option.none())
      })
    )

    it.effect("reads a signed-in user with their identities and the named session, many asked at once", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const sessions = yield* SessionStore
        const { user, identity } = yield* signUp()
        const session = Fixtures.session(user.id)
        yield* sessions.start(session, Fixtures.refreshToken().hash)
        // Nothing but what `Session.start` requires: the optional columns come back as none.
        const bare = Fixtures.session(user.id, Time.plus(Fixtures.t0, "1 minute"), {
          userAgent: Option.none(),
          ip: Option.none(),
          amr: []
        })
        yield* sessions.start(bare, Fixtures.refreshToken().hash)
        const stored = Option.getOrThrow(yield* sessions.findById(session.id))
        const account = { user, identities: [identity], factors: [] }

        expect(yield* users.findSignedIn(user.id, Option.some(session.id))).toEqual(
          Option.some({ ...account, session: Option.some(stored) })
        )
        expect(yield* users.findSignedIn(user.id, Option.some(bare.id))).toEqual(
          Option.some({ ...account, session: yield* sessions.findById(bare.id) })
        )
        expect(yield* users.findSignedIn(user.id, Option.none())).toEqual(
          Option.some({ ...account, session: Option.none() })
        )
        const unknownSession = Session.SessionId.make(randomUUID())
        expect(yield* users.findSignedIn(user.id, Option.some(unknownSession))).toEqual(
          Option.some({ ...account, session: Option.none() })
        )
        expect(yield* users.findSignedIn(UserId.make(randomUUID()), Option.some(session.id))).toEqual(
          Option.none()
        )

        // Asked at once, so that the Postgres adapter answers them from one shared statement;
        // a session is read whoever's it is, and an ended one as it stands.
        const signedIn = Effect.gen(function* () {
          const other = yield* signUp()
          const started = Fixtures.session(other.user.id)
          yield* sessions.start(started, Fixtures.refreshToken().hash)
          return { ...other, session: started }
        })
        const ended = yield* signedIn
        const lent = yield* signedIn
        const others = yield* Effect.forEach(Array.from({ length: 8 }), () => signedIn)
        yield* sessions.revoke(ended.session.id, Time.plus(Fixtures.t0, "1 hour"))
        const reads = [
          ...[ended, lent, ...others].map((other) => [other.user.id, Option.some(other.session.id)] as const),
          [user.id, Option.some(lent.session.id)] as const,
          [user.id, Option.some(session.id)] as const,
          [user.id, Option.some(session.id)] as const,
          [UserId.make(randomUUID()), Option.none()] as const
        ]
        const found = yield* Effect.forEach(reads, ([id, named]) => users.findSignedIn(id, named), {
          concurrency: "unbounded"
        })
        const expected = yield* Effect.forEach(reads, ([id, named]) =>
          Effect.gen(function* () {
            const owner = yield* users.findWithIdentities(id)
            const read = Option.isNone(named) ? Option.none() : yield* sessions.findById(named.value)
            return Option.map(owner, (withIdentities) => ({ ...withIdentities, session: read, factors: [] }))
          })
        )
        expect(found).toEqual(expected)
        expect(
          Option.flatMap(yield* users.findSignedIn(ended.user.id, Option.some(ended.session.id)), (first) =>
            Option.flatMap(first.session, (read) => read.revokedAt)
          )
        ).toEqual(Option.some(Time.plus(Fixtures.t0, "1 hour")))
        expect(found.at(-1)).toEqual(Option.none())

        yield* users.softDelete(user.id, Time.plus(Fixtures.t0, "2 hours"))
        expect(yield* users.findSignedIn(user.id, Option.some(session.id))).toEqual(Option.none())
      })
    )

    it.effect("reads a signed-in user's factors with them, oldest first, whoever else has factors", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const factors = yield* FactorStore
        const { user } = yield* signUp()
        const other = yield* signUp()
        const later = factorOf(user.id, {
          factorType: "phone",
          phone: Option.some(Fixtures.phone()),
          friendlyName: "",
          createdAt: Time.plus(Fixtures.t0, "1 minute"),
          updatedAt: Time.plus(Fixtures.t0, "1 minute")
        })
        const first = factorOf(user.id, {
          lastChallengedAt: Option.some(Time.plus(Fixtures.t0, "2 minutes"))
        })
        yield* factors.enrol(later, Option.none(), defaultLimits)
        yield* factors.enrol(first, Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), defaultLimits)
        yield* factors.enrol(
          factorOf(other.user.id),
          Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"),
          defaultLimits
        )
        const [mine, theirs] = yield* Effect.all(
          [users.findSignedIn(user.id, Option.none()), users.findSignedIn(other.user.id, Option.none())],
          { concurrency: "unbounded" }
        )
        expect(Option.map(mine, (found) => found.factors)).toEqual(Option.some([first, later]))
        expect(Option.map(theirs, (found) => found.factors.length)).toEqual(Option.some(1))
      })
    )

    it.effect("stores an anonymous user, who has no identity, no email, no phone and no password", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const user = Fixtures.user({ email: Option.none(), isAnonymous: true, appMetadata: {} })
        yield* users.insert(user, [], Option.none())
        expect(yield* users.findById(user.id)).toEqual(Option.some(user))
        expect(yield* users.identitiesOf(user.id)).toEqual([])
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.none())
        // Converted later: an identity is linked to the user.
        const identity = Fixtures.emailIdentity(user)
        yield* users.addIdentity(identity)
        expect((yield* users.identitiesOf(user.id)).map((linked) => linked.id)).toEqual([identity.id])
        const again = new Identity({ ...identity, id: IdentityId.make(randomUUID()) })
        expect(tagOf(yield* Effect.either(users.addIdentity(again)))).toBe("IdentityExists")
        const stranger = Fixtures.emailIdentity(Fixtures.user())
        expect(tagOf(yield* Effect.either(users.addIdentity(stranger)))).toBe("UserNotFound")
      })
    )

    it.effect("an identity's email is the provider's, lower-cased, whatever the caller put there", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const user = Fixtures.user()
        const identity = Fixtures.emailIdentity(user, {
          provider: "github",
          providerId: randomUUID(),
          identityData: { email: "Mixed.Case@Example.COM" },
          email: Option.none()
        })
        yield* users.insert(user, [identity], Option.none())
        const [stored] = yield* users.identitiesOf(user.id)
        expect(stored?.email).toEqual(Option.some("mixed.case@example.com"))
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.none())
      })
    )

    it.effect(`of ${concurrently} concurrent sign-ups with one email exactly one creates a user`, () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const email = Fixtures.email()
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => Effect.either(signUp({ email: Option.some(email) }))),
          { concurrency: "unbounded" }
        )
        const tags = results.map(tagOf)
        expect(tags.filter((tag) => tag === "ok")).toHaveLength(1)
        expect(tags.filter((tag) => tag === "EmailExists")).toHaveLength(concurrently - 1)
        const winner = results.flatMap((result) => (Either.isRight(result) ? [result.right.user] : []))
        expect(yield* users.findByEmail(email)).toEqual(Option.some(winner[0]))
      })
    )

    it.effect("a phone number belongs to one user; a provider account to one identity", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const phone = Fixtures.phone()
        yield* signUp({ phone: Option.some(phone) })
        expect(tagOf(yield* Effect.either(signUp({ phone: Option.some(phone) })))).toBe("PhoneExists")

        const first = Fixtures.user()
        const subject = randomUUID()
        const github = (owner: typeof first) =>
          Fixtures.emailIdentity(owner, { provider: "github", providerId: subject })
        yield* users.insert(first, [github(first)], Option.none())
        const second = Fixtures.user()
        const clash = yield* Effect.either(users.insert(second, [github(second)], Option.none()))
        expect(tagOf(clash)).toBe("IdentityExists")
        // All or nothing: the user of the refused identity was not stored either.
        expect(yield* users.findById(second.id)).toEqual(Option.none())
        expect(yield* users.findByEmail(Option.getOrThrow(second.email))).toEqual(Option.none())
      })
    )

    it.effect("an update changes the given fields, stamps updated_at and keeps addresses unique", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user } = yield* signUp()
        const { user: other } = yield* signUp()
        const later = Time.plus(Fixtures.t0, "1 hour")
        const newEmail = Fixtures.email()
        const updated = yield* users.update(
          user.id,
          {
            email: Option.some(newEmail),
            userMetadata: { full_name: "Grace" },
            emailConfirmedAt: Option.some(later)
          },
          later
        )
        expect(updated.email).toEqual(Option.some(newEmail))
        expect(updated.userMetadata).toEqual({ full_name: "Grace" })
        expect(updated.updatedAt).toEqual(later)
        expect(updated.createdAt).toEqual(user.createdAt)
        expect(yield* users.findById(user.id)).toEqual(Option.some(updated))
        expect(yield* users.findByEmail(Option.getOrThrow(user.email))).toEqual(Option.none())

        const taken = yield* Effect.either(users.update(user.id, { email: other.email }, later))
        expect(tagOf(taken)).toBe("EmailExists")
        expect(yield* users.findById(user.id)).toEqual(Option.some(updated))
        const unknown = yield* Effect.either(users.update(UserId.make(randomUUID()), { role: "x" }, later))
        expect(tagOf(unknown)).toBe("UserNotFound")
      })
    )

    it.effect("concurrent updates of different fields all land", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user } = yield* signUp()
        const later = Time.plus(Fixtures.t0, "1 minute")
        yield* Effect.all(
          [
            users.update(user.id, { role: "admin" }, later),
            users.update(user.id, { userMetadata: { a: 1 } }, later),
            users.update(user.id, { appMetadata: { provider: "email", providers: ["email"], b: 2 } }, later),
            users.update(user.id, { phone: Option.some(Fixtures.phone()) }, later)
          ],
          { concurrency: "unbounded" }
        )
        const stored = Option.getOrThrow(yield* users.findById(user.id))
        expect(stored.role).toBe("admin")
        expect(stored.userMetadata).toEqual({ a: 1 })
        expect(stored.appMetadata).toEqual({ provider: "email", providers: ["email"], b: 2 })
        expect(Option.isSome(stored.phone)).toBe(true)
      })
    )

    it.effect("a secure email change: pending until both addresses confirm, then the user's", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp({ emailConfirmedAt: Option.some(Fixtures.t0) })
        const next = Fixtures.email()
        const later = Time.plus(Fixtures.t0, 60_000)
        const confirmation = {
          userId: user.id,
          field: "email" as const,
          needed: 2 as const,
          identity: Fixtures.emailIdentity(user, {
            identityData: { sub: user.id, email: next, email_verified: true }
          }),
          now: later
        }
        expect((yield* users.confirmChange(confirmation))._tag).toBe("NothingPending")
        yield* users.update(
          user.id,
          { emailChange: Option.some(next), emailChangeSentAt: Option.some(Fixtures.t0) },
          Fixtures.t0
        )
        expect(Option.map(yield* users.findByPendingEmail(next), (found) => found.id)).toEqual(
          Option.some(user.id)
        )
        expect(yield* users.findByEmail(next)).toEqual(Option.none())

        expect(yield* users.confirmChange(confirmation)).toEqual({ _tag: "Waiting" })
        const waiting = Option.getOrThrow(yield* users.findById(user.id))
        expect(waiting.email).toEqual(user.email)
        expect(waiting.emailChangeConfirmStatus).toBe(1)

        const done = yield* users.confirmChange(confirmation)
        if (done._tag !== "Changed") return expect.unreachable(done._tag)
        expect(done.previous).toEqual(user.email)
        expect(done.user.email).toEqual(Option.some(next))
        expect(done.user.emailChange).toEqual(Option.none())
        expect(done.user.emailChangeConfirmStatus).toBe(0)
        // Confirmed before the change: that time stays.
        expect(done.user.emailConfirmedAt).toEqual(Option.some(Fixtures.t0))
        expect(yield* users.findById(user.id)).toEqual(Option.some(done.user))
        expect(Option.map(yield* users.findByEmail(next), (found) => found.id)).toEqual(Option.some(user.id))
        // The email identity carries the new address; no second one was made.
        const identities = yield* users.identitiesOf(user.id)
        expect(identities.map((known) => known.id)).toEqual([identity.id])
        expect(identities[0]?.identityData).toEqual({ sub: user.id, email: next, email_verified: true })
        expect(identities[0]?.email).toEqual(Option.some(next))
        expect((yield* users.confirmChange(confirmation))._tag).toBe("NothingPending")
      })
    )

    it.effect("a phone change confirmed once adds the phone identity; a taken number is refused", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user } = yield* signUp()
        const number = Fixtures.phone()
        const phoneIdentity = (owner: typeof user) =>
          new Identity({
            ...Fixtures.emailIdentity(owner),
            id: IdentityId.make(randomUUID()),
            provider: "phone",
            identityData: { sub: owner.id, phone: number, phone_verified: true },
            createdAt: Time.plus(Fixtures.t0, 1000)
          })
        yield* users.update(user.id, { phoneChange: Option.some(number) }, Fixtures.t0)
        expect(Option.map(yield* users.findByPendingPhone(number), (found) => found.id)).toEqual(
          Option.some(user.id)
        )
        const done = yield* users.confirmChange({
          userId: user.id,
          field: "phone",
          needed: 1,
          identity: phoneIdentity(user),
          now: Fixtures.t0
        })
        if (done._tag !== "Changed") return expect.unreachable(done._tag)
        expect(done.user.phone).toEqual(Option.some(number))
        expect(done.user.phoneConfirmedAt).toEqual(Option.some(Fixtures.t0))
        expect(done.user.appMetadata.providers).toEqual(["email", "phone"])
        expect((yield* users.identitiesOf(user.id)).map((known) => known.provider)).toEqual([
          "email",
          "phone"
        ])

        const other = yield* signUp()
        yield* users.update(other.user.id, { phoneChange: Option.some(number) }, Fixtures.t0)
        const taken = yield* Effect.either(
          users.confirmChange({
            userId: other.user.id,
            field: "phone",
            needed: 1,
            identity: phoneIdentity(other.user),
            now: Fixtures.t0
          })
        )
        expect(tagOf(taken)).toBe("PhoneExists")
        expect(Option.map(yield* users.findById(other.user.id), (found) => found.phone)).toEqual(
          Option.some(Option.none())
        )
      })
    )

    it.effect(`${concurrently} concurrent confirmations of a secure email change: it lands once`, () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user } = yield* signUp()
        const next = Fixtures.email()
        yield* users.update(user.id, { emailChange: Option.some(next) }, Fixtures.t0)
        const outcomes = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            users.confirmChange({
              userId: user.id,
              field: "email",
              needed: 2,
              identity: Fixtures.emailIdentity(user, { identityData: { email: next } }),
              now: Fixtures.t0
            })
          ),
          { concurrency: "unbounded" }
        )
        const tags = outcomes.map((outcome) => outcome._tag).sort()
        expect(tags.filter((tag) => tag === "Waiting")).toHaveLength(1)
        expect(tags.filter((tag) => tag === "Changed")).toHaveLength(1)
        expect(tags.filter((tag) => tag === "NothingPending")).toHaveLength(concurrently - 2)
      })
    )

    it.effect(
      "a provider account finds its identity and user; a new sign-in refreshes the identity's data",
      () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const { user } = yield* signUp()
          const github = Fixtures.emailIdentity(user, {
            id: IdentityId.make(randomUUID()),
            provider: "github",
            providerId: "4242",
            identityData: { sub: "4242", email: "Old@Example.com", user_name: "ada" },
            createdAt: Time.plus(Fixtures.t0, 1000)
          })
          yield* users.addIdentity(github)
          const found = yield* users.findByIdentity("github", "4242")
          expect(Option.map(found, (both) => [both.user.id, both.identity.id])).toEqual(
            Option.some([user.id, github.id])
          )
          expect(yield* users.findByIdentity("github", "4243")).toEqual(Option.none())
          expect(yield* users.findByIdentity("gitlab", "4242")).toEqual(Option.none())

          const later = Time.plus(Fixtures.t0, 60_000)
          yield* users.refreshIdentity(
            github.id,
            { sub: "4242", email: "New@Example.com", user_name: "ada2" },
            later
          )
          const refreshed = (yield* users.identitiesOf(user.id)).find((identity) => identity.id === github.id)
          expect(refreshed?.identityData).toEqual({
            sub: "4242",
            email: "New@Example.com",
            user_name: "ada2"
          })
          expect(refreshed?.email).toEqual(Option.some("new@example.com"))
          expect(refreshed?.lastSignInAt).toEqual(Option.some(later))
        })
    )

    it.effect("password hash and last sign-in", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp()
        const later = Time.plus(Fixtures.t0, "2 hours")
        yield* users.setPasswordHash(user.id, Option.some("$argon2id$new"), later)
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.some("$argon2id$new"))
        yield* users.setPasswordHash(user.id, Option.none(), later)
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.none())

        // A password change forgets when links went out; setting a hash alone leaves that be.
        const sent = Option.some(Time.plus(Fixtures.t0, "1 hour"))
        const stamps = {
          confirmationSentAt: sent,
          recoverySentAt: sent,
          emailChangeSentAt: sent,
          phoneChangeSentAt: sent,
          reauthenticationSentAt: sent
        }
        const stampsOf = (stored: User) => ({
          confirmationSentAt: stored.confirmationSentAt,
          recoverySentAt: stored.recoverySentAt,
          emailChangeSentAt: stored.emailChangeSentAt,
          phoneChangeSentAt: stored.phoneChangeSentAt,
          reauthenticationSentAt: stored.reauthenticationSentAt
        })
        yield* users.update(user.id, stamps, later)
        yield* users.setPasswordHash(user.id, Option.some("$argon2id$rehashed"), later)
        expect(stampsOf(Option.getOrThrow(yield* users.findById(user.id)))).toEqual(stamps)
        const changedAt = Time.plus(Fixtures.t0, "90 minutes")
        yield* users.changePassword(user.id, "$argon2id$changed", changedAt)
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.some("$argon2id$changed"))
        const changed = Option.getOrThrow(yield* users.findById(user.id))
        expect(stampsOf(changed)).toEqual({
          confirmationSentAt: Option.none(),
          recoverySentAt: Option.none(),
          emailChangeSentAt: Option.none(),
          phoneChangeSentAt: Option.none(),
          reauthenticationSentAt: Option.none()
        })
        expect(changed.updatedAt).toEqual(changedAt)
        expect(changed.email).toEqual(user.email)

        expect((yield* users.recordSignIn(user.id, Option.none(), later)).factors).toEqual([])
        // The user's factors come back with the stamp, oldest first, as the token answer lists them.
        const factors = yield* FactorStore
        const second = factorOf(user.id, { createdAt: Time.plus(Fixtures.t0, "1 minute") })
        const first = factorOf(user.id, { status: "verified" })
        yield* factors.enrol(second, Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), defaultLimits)
        yield* factors.enrol(first, Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), defaultLimits)
        const returned = yield* users.recordSignIn(user.id, Option.some(identity.id), later)
        expect(returned.factors).toEqual([first, second])
        expect(Option.getOrThrow(yield* users.findById(user.id)).lastSignInAt).toEqual(Option.some(later))
        const [signedIn] = yield* users.identitiesOf(user.id)
        expect(signedIn?.lastSignInAt).toEqual(Option.some(later))
        // The identities come back as the stamp left them, as a later read sees them.
        expect(returned.identities.map((one) => [one.id, one.lastSignInAt, one.updatedAt.getTime()])).toEqual(
          [[identity.id, Option.some(later), later.getTime()]]
        )
        expect(returned.identities).toEqual(yield* users.identitiesOf(user.id))
        // An identity of someone else is left alone; the user's own come back unchanged.
        const evenLater = Time.plus(Fixtures.t0, "3 hours")
        const untouched = yield* users.recordSignIn(
          user.id,
          Option.some(IdentityId.make(randomUUID())),
          evenLater
        )
        expect(untouched.identities.map((one) => one.lastSignInAt)).toEqual([Option.some(later)])
        expect(Option.getOrThrow(yield* users.findById(user.id)).lastSignInAt).toEqual(Option.some(evenLater))

        const nobody = UserId.make(randomUUID())
        expect(tagOf(yield* Effect.either(users.setPasswordHash(nobody, Option.none(), later)))).toBe(
          "UserNotFound"
        )
        expect(tagOf(yield* Effect.either(users.changePassword(nobody, "$argon2id$x", later)))).toBe(
          "UserNotFound"
        )
        expect(tagOf(yield* Effect.either(users.recordSignIn(nobody, Option.none(), later)))).toBe(
          "UserNotFound"
        )
      })
    )

    it.effect("a soft-deleted user is hidden but from the admin's reads; address and accounts are free", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const aud = `aud-${randomUUID()}`
        const phone = Fixtures.phone()
        const user = Fixtures.user({ aud, phone: Option.some(phone) })
        const github = Fixtures.emailIdentity(user, { provider: "github", providerId: randomUUID() })
        yield* users.insert(user, [github], Option.some("$argon2id$hash"))
        const later = Time.plus(Fixtures.t0, "1 day")
        yield* users.softDelete(user.id, later)

        const email = Option.getOrThrow(user.email)
        expect(yield* users.findById(user.id)).toEqual(Option.none())
        expect(yield* users.findByEmail(email)).toEqual(Option.none())
        expect(yield* users.findByPhone(phone)).toEqual(Option.none())
        expect(yield* users.identitiesOf(user.id)).toEqual([])
        expect(yield* users.findPasswordHash(user.id)).toEqual(Option.none())
        expect(yield* users.findSignedIn(user.id, Option.none())).toEqual(Option.none())
        expect(tagOf(yield* Effect.either(users.update(user.id, { role: "x" }, later)))).toBe("UserNotFound")
        // The admin API still shows the user, as Supabase Auth does: nothing left that identifies
        // them, and when they went.
        const shown = Option.getOrThrow(yield* users.findAccount(user.id))
        expect(shown.user.deletedAt).toEqual(Option.some(later))
        expect([shown.user.email, shown.user.phone, shown.user.userMetadata]).toEqual([
          Option.none(),
          Option.none(),
          {}
        ])
        expect(shown.identities.map((identity) => [identity.providerId, identity.identityData])).toEqual([
          [github.id, {}]
        ])
        const listed = yield* users.list({ aud, page: 1, perPage: 50, order: "desc", filter: "" })
        expect([listed.total, listed.users.map((one) => [one.id, one.deletedAt])]).toEqual([
          1,
          [[user.id, Option.some(later)]]
        ])
        // Soft-deleted again: as it was, when it was.
        yield* users.softDelete(user.id, Time.plus(later, "1 hour"))
        expect(Option.getOrThrow(yield* users.findAccount(user.id)).user.deletedAt).toEqual(
          Option.some(later)
        )

        const again = Fixtures.user({ email: Option.some(email), phone: Option.some(phone) })
        const sameAccount = new Identity({ ...github, id: IdentityId.make(randomUUID()), userId: again.id })
        yield* users.insert(again, [sameAccount], Option.none())
        expect(Option.map(yield* users.findByEmail(email), (found) => found.id)).toEqual(
          Option.some(again.id)
        )
        // A hard delete removes the soft-deleted row too.
        yield* users.delete(user.id)
        expect(yield* users.findAccount(user.id)).toEqual(Option.none())
      })
    )

    it.effect("a hard delete removes the user and its identities", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp()
        yield* users.delete(user.id)
        expect(yield* users.findById(user.id)).toEqual(Option.none())
        expect(yield* users.identitiesOf(user.id)).toEqual([])
        expect(tagOf(yield* Effect.either(users.delete(user.id)))).toBe("UserNotFound")
        // The account at the provider can sign up again.
        const again = Fixtures.user({ email: user.email })
        yield* users.insert(
          again,
          [new Identity({ ...identity, id: IdentityId.make(randomUUID()), userId: again.id })],
          Option.none()
        )
      })
    )

    it.effect(
      "anonymous users made before the cutoff are reaped with their sessions, at most the limit",
      () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const sessions = yield* SessionStore
          const anonymousAt = (createdAt: Date) =>
            Effect.gen(function* () {
              const user = Fixtures.user({
                email: Option.none(),
                isAnonymous: true,
                createdAt,
                updatedAt: createdAt
              })
              yield* users.insert(user, [], Option.none())
              const session = Fixtures.session(user.id, createdAt)
              yield* sessions.start(session, Fixtures.refreshToken().hash)
              return { user, session }
            })
          // Long before any other test's users, which share the database and are not to be counted.
          const long = Time.minus(Fixtures.t0, "20000 days")
          const cutoff = Time.plus(long, "30 days")
          const old = yield* anonymousAt(long)
          const older = yield* anonymousAt(Time.minus(long, "1 day"))
          const atCutoff = yield* anonymousAt(cutoff)
          const permanent = yield* signUp()

          expect(yield* users.reapAnonymous(cutoff, 1)).toBe(1)
          expect(yield* users.reapAnonymous(cutoff, 100)).toBe(1)
          expect(yield* users.reapAnonymous(cutoff, 100)).toBe(0)
          for (const gone of [old, older]) {
            expect(yield* users.findById(gone.user.id)).toEqual(Option.none())
            expect(yield* sessions.findById(gone.session.id)).toEqual(Option.none())
          }
          expect(Option.isSome(yield* users.findById(atCutoff.user.id))).toBe(true)
          expect(Option.isSome(yield* sessions.findById(atCutoff.session.id))).toBe(true)
          expect(Option.isSome(yield* users.findById(permanent.user.id))).toBe(true)
          // Gone, so that the session reapers' tests, sharing the database, find no session this old.
          yield* users.delete(atCutoff.user.id)
        })
    )

    it.effect("an address confirmed: the metadata marked, and the address's identities when asked", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp({ userMetadata: { theme: "dark", email_verified: false } })
        const provider = new Identity({
          ...identity,
          id: IdentityId.make(randomUUID()),
          provider: "github",
          providerId: randomUUID(),
          identityData: { sub: "gh", email_verified: false },
          email: Option.none()
        })
        yield* users.addIdentity(provider)
        const now = Time.plus(Fixtures.t0, "1 hour")
        const confirmed = yield* users.confirmEmail(user.id, { identities: false }, now)
        expect(confirmed.emailConfirmedAt).toEqual(Option.some(now))
        expect(confirmed.userMetadata).toEqual({ theme: "dark", email_verified: true })
        expect(yield* users.findById(user.id)).toEqual(Option.some(confirmed))
        const verifiedOf = Effect.map(users.identitiesOf(user.id), (identities) =>
          identities
            .map((linked) => [linked.provider, linked.identityData.email_verified])
            .sort(([a], [b]) => String(a).localeCompare(String(b)))
        )
        expect(yield* verifiedOf).toEqual([
          ["email", false],
          ["github", false]
        ])
        yield* users.confirmEmail(user.id, { identities: true }, now)
        // The email identity carries the address; the other one names none, so it stays as it was.
        expect(yield* verifiedOf).toEqual([
          ["email", true],
          ["github", false]
        ])
        expect(
          tagOf(
            yield* Effect.either(users.confirmEmail(UserId.make(randomUUID()), { identities: true }, now))
          )
        ).toBe("UserNotFound")
      })
    )

    it.effect("data merged into a user's identity of a provider; the generated email follows", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const { user, identity } = yield* signUp()
        const now = Time.plus(Fixtures.t0, "1 hour")
        expect(
          yield* users.mergeIdentityData(
            user.id,
            "email",
            { email: "New@Example.com", email_verified: true },
            now
          )
        ).toBe(true)
        const [merged] = yield* users.identitiesOf(user.id)
        expect(merged?.identityData).toEqual({
          ...identity.identityData,
          email: "New@Example.com",
          email_verified: true
        })
        expect(merged?.email).toEqual(Option.some("new@example.com"))
        expect(merged?.updatedAt).toEqual(now)
        expect(yield* users.mergeIdentityData(user.id, "phone", { phone: "15555550123" }, now)).toBe(false)
        expect(yield* users.mergeIdentityData(UserId.make(randomUUID()), "email", {}, now)).toBe(false)
      })
    )

    it.effect("the admin list: one audience, newest first, paged, with the total", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const aud = `aud-${randomUUID()}`
        const created = yield* Effect.forEach([0, 1, 2, 3, 4], (minutes) =>
          Effect.map(signUp({ aud, createdAt: Time.plus(Fixtures.t0, `${minutes} minutes`) }), (s) => s.user)
        )
        yield* signUp({ aud: `${aud}-other` })
        const ids = (page: { readonly users: ReadonlyArray<{ readonly id: UserId }> }) =>
          page.users.map((user) => user.id)
        const newestFirst = created.map((user) => user.id).reverse()

        const page1 = yield* users.list({ aud, page: 1, perPage: 2, order: "desc", filter: "" })
        expect([ids(page1), page1.total]).toEqual([newestFirst.slice(0, 2), 5])
        const page3 = yield* users.list({ aud, page: 3, perPage: 2, order: "desc", filter: "" })
        expect([ids(page3), page3.total]).toEqual([newestFirst.slice(4), 5])
        // Past the last page: no users, and still the total.
        const page4 = yield* users.list({ aud, page: 4, perPage: 2, order: "desc", filter: "" })
        expect([ids(page4), page4.total]).toEqual([[], 5])
        const all = yield* users.list({ aud, page: 1, perPage: 100, order: "asc", filter: "" })
        expect(ids(all)).toEqual([...newestFirst].reverse())
        expect(
          (yield* users.list({ aud: `aud-${randomUUID()}`, page: 1, perPage: 10, order: "desc", filter: "" }))
            .total
        ).toBe(0)
      })
    )

    it.effect(
      "the admin list's filter: in the email or the full name, case ignored, each character as itself",
      () =>
        Effect.gen(function* () {
          const users = yield* UserRepository
          const aud = `aud-${randomUUID()}`
          // Digits 2 to 9 only, so that no letter of the filters below, nor their "100", comes
          // from it by chance.
          const tag = [...randomUUID().replace(/-/g, "")]
            .map((hex) => String(2 + (Number.parseInt(hex, 16) % 8)))
            .join("")
            .slice(0, 12)
          const make = (minutes: number, email: string, userMetadata: Record<string, unknown> = {}) =>
            Effect.map(
              signUp({
                aud,
                email: Option.some(Fixtures.email(email)),
                userMetadata,
                createdAt: Time.plus(Fixtures.t0, `${minutes} minutes`)
              }),
              (made) => made.user.id
            )
          const ada = yield* make(0, `ada.${tag}@example.com`)
          const byron = yield* make(1, `lord-${tag}@example.com`, { full_name: `Ada Byron ${tag}` })
          const percent = yield* make(2, `100%_${tag}@example.com`)
          // What `100%_` would match were `%` and `_` wildcards.
          const lookalike = yield* make(3, `100xy${tag}@example.com`)
          const backslash = yield* make(4, `path-${tag}@example.com`, { full_name: "C:\\temp" })
          const numeric = yield* make(5, `number-${tag}@example.com`, { full_name: 100 })
          // Another audience's user matches too, and is never listed.
          yield* signUp({ aud: `${aud}-other`, email: Option.some(Fixtures.email(`ada-${tag}@example.org`)) })

          const found = (filter: string, order: "asc" | "desc" = "desc", page = 1, perPage = 10) =>
            Effect.map(users.list({ aud, page, perPage, order, filter }), (listed) => [
              listed.users.map((user) => user.id),
              listed.total
            ])
          expect(yield* found("ADA")).toEqual([[byron, ada], 2])
          expect(yield* found("ADA", "asc")).toEqual([[ada, byron], 2])
          expect(yield* found("ADA", "desc", 2, 1)).toEqual([[ada], 2])
          expect(yield* found("byron")).toEqual([[byron], 1])
          expect(yield* found(`100%_${tag}`)).toEqual([[percent], 1])
          expect(yield* found("_")).toEqual([[percent], 1])
          expect(yield* found("%")).toEqual([[percent], 1])
          expect(yield* found("\\temp")).toEqual([[backslash], 1])
          expect(yield* found("100")).toEqual([[numeric, lookalike, percent], 3])
          expect(yield* found("nobody")).toEqual([[], 0])
          expect(yield* found("")).toEqual([[numeric, backslash, lookalike, percent, byron, ada], 6])
        })
    )

    it.effect("users created at the same instant page without gaps or repeats", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const aud = `aud-${randomUUID()}`
        const created = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7], () =>
          Effect.map(signUp({ aud }), (s) => s.user.id)
        )
        const pages = yield* Effect.forEach([1, 2, 3], (page) =>
          users.list({ aud, page, perPage: 3, order: "desc", filter: "" })
        )
        const seen = pages.flatMap((page) => page.users.map((user) => user.id))
        expect([...seen].sort()).toEqual([...created].sort())
      })
    )
  })
