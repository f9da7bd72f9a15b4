import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../../application/auth/ports/SessionStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import * as RefreshSession from "../../../../application/auth/RefreshSession.js"
import { Secrets } from "../../../../application/ports/Secrets.js"
import { defaultLimits, FactorId } from "../../../../domain/auth/Factor.js"
import { authPolicy } from "../../../../domain/auth/RefreshPolicy.js"
import * as Session from "../../../../domain/auth/Session.js"
import { SecretHash, type UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { AuthStorage, It } from "./AuthStorage.js"
import { factorOf } from "./FactorStoreContract.js"

const withInterval = authPolicy({ rotationEnabled: true, reuseInterval: Duration.seconds(10) })
export const noInterval = authPolicy({ rotationEnabled: true, reuseInterval: Duration.zero })
const noRotation = authPolicy({ rotationEnabled: false, reuseInterval: Duration.seconds(10) })

type Token = ReturnType<typeof Fixtures.refreshToken>

/** The user with their identities and factors, as a refresh answers with them. */
const accountOf = (userId: UserId) =>
  Effect.flatMap(UserRepository, (users) =>
    Effect.map(
      users.findSignedIn(userId, Option.none()),
      Option.map(({ factors, identities, user }) => ({ user, identities, factors }))
    )
  )

/** The session raised by a TOTP factor of its own, at `later`. */
const raiseByNewFactor = (sessionId: Session.SessionId) =>
  Effect.flatMap(SessionStore, (sessions) =>
    sessions.raise({
      sessionId,
      factorId: FactorId.make(randomUUID()),
      factorType: "totp",
      child: Fixtures.refreshToken().hash,
      now: later
    })
  )

/** A stored user and a session started for it at `at`, with the session's first refresh token. */
export const signIn = (user = Fixtures.user(), at = Fixtures.t0) =>
  Effect.gen(function* () {
    const users = yield* UserRepository
    if (Option.isNone(yield* users.findById(user.id))) {
      yield* users.insert(user, [Fixtures.emailIdentity(user)], Option.none())
    }
    const session = Fixtures.session(user.id, at)
    const token = Fixtures.refreshToken()
    yield* Effect.flatMap(SessionStore, (sessions) => sessions.start(session, token.hash))
    return { user, session, token }
  })

/**
 * A refresh as the use case runs it: mint a child, seal it under the presented token, present
 * (`RefreshSession.present`: the store's shared rotation, else the rule under the session's
 * lock); on a reissue, open the live child with the presented token.
 */
export const present = (
  token: Token,
  policy: Session.RefreshPolicy,
  now: Date,
  limits: Session.Limits = Session.unlimited
) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const minted = Fixtures.refreshToken()
    const sealed = yield* secrets.seal(token.plaintext, minted.plaintext)
    const refreshed = yield* RefreshSession.present({
      presented: token.hash,
      child: { hash: minted.hash, sealed },
      policy,
      limits,
      now
    })
    if (refreshed._tag === "Rotated") return { ...refreshed, token: minted }
    const opened = yield* secrets.unseal(token.plaintext, refreshed.child)
    const plaintext = Option.getOrThrow(opened)
    const hash = SecretHash.make(createHash("sha256").update(Redacted.value(plaintext)).digest("hex"))
    return { ...refreshed, token: { plaintext, hash } }
  })

export const outcome = <A extends { readonly _tag: string }, E extends { readonly _tag: string }>(
  result: Either.Either<A, E>
) => Either.match(result, { onLeft: (error) => error._tag, onRight: (value) => value._tag })

const later = Time.plus(Fixtures.t0, "1 hour")

/** What a presentation comes to, as the contract compares it: the storage's and the rule's alike. */
const expected = (outcome: Session.Presented): string =>
  Session.Presented.$match(outcome, {
    Rotate: () => "Rotated",
    Reissue: () => "Reissued",
    ReuseDetected: () => "RefreshTokenAlreadyUsed",
    AlreadyUsed: () => "RefreshTokenAlreadyUsed",
    Ended: () => "SessionRevoked"
  })

type Step =
  | { readonly _tag: "Advance"; readonly ms: number }
  /** A token minted for the session: `pick` modulo their count, or the newest when negative. */
  | { readonly _tag: "Present"; readonly pick: number }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Logout" }

const steps = FastCheck.array(
  FastCheck.oneof(
    {
      weight: 3,
      arbitrary: FastCheck.integer({ min: 0, max: 15_000 }).map((ms): Step => ({ _tag: "Advance", ms }))
    },
    { weight: 3, arbitrary: FastCheck.nat().map((pick): Step => ({ _tag: "Present", pick })) },
    { weight: 4, arbitrary: FastCheck.constant<Step>({ _tag: "Present", pick: -1 }) },
    { weight: 1, arbitrary: FastCheck.constant<Step>({ _tag: "Unknown" }) },
    { weight: 1, arbitrary: FastCheck.constant<Step>({ _tag: "Logout" }) }
  ),
  { maxLength: 12 }
)

const policies = FastCheck.constantFrom(withInterval, noInterval, noRotation)

/**
 * One generated history on the store: each presentation's outcome, the shared rotation's answer
 * and the stored session are the rule's (`Session.present`, `Session.after`), step by step.
 */
const followsTheRule = (policy: Session.RefreshPolicy, history: ReadonlyArray<Step>) =>
  Effect.gen(function* () {
    const sessions = yield* SessionStore
    const { session, token } = yield* signIn()
    let model = session
    // The token of each generation, as handed out: a reissue hands out the live one again.
    const minted: Array<Token> = [token]
    let now = later
    for (const step of history) {
      switch (step._tag) {
        case "Advance":
          now = new Date(now.getTime() + step.ms)
          break
        case "Unknown":
          expect(outcome(yield* Effect.either(present(Fixtures.refreshToken(), policy, now)))).toBe(
            "RefreshTokenNotFound"
          )
          break
        case "Logout":
          yield* sessions.revoke(session.id, now)
          model = Session.revoke(model, now)
          break
        case "Present": {
          const generation = step.pick < 0 ? minted.length - 1 : step.pick % minted.length
          const presented = Option.getOrThrow(Option.fromNullable(minted[generation]))
          const rule = Session.present(policy, model, generation, now)
          // The shared rotation first, on its own: it rotates exactly when the rule says so.
          const child = Fixtures.refreshToken()
          const sealed = yield* Effect.flatMap(Secrets, (secrets) =>
            secrets.seal(presented.plaintext, child.plaintext)
          )
          const rotated = yield* sessions.rotate({
            presented: presented.hash,
            child: child.hash,
            sealed: Session.keepsChild(policy) ? Option.some(sealed) : Option.none(),
            cutoffs: Session.noCutoffs,
            now
          })
          model = Session.after(model, rule, now)
          if (rule._tag === "Rotate") {
            expect(Option.map(rotated, (done) => done.session)).toEqual(Option.some(model))
            minted.push(child)
            break
          }
          expect(rotated).toEqual(Option.none())
          // Anything else goes on to the rule under the session's lock, as a refresh does.
          const result = yield* Effect.either(present(presented, policy, now))
          expect(outcome(result)).toBe(expected(rule))
          // A reissue hands out the live child again, which only the presented token opens.
          if (Either.isRight(result)) expect(result.right.token.hash).toBe(minted.at(-1)?.hash)
          break
        }
      }
      expect(yield* sessions.findById(session.id)).toEqual(Option.some(model))
    }
  })

export const sessionStoreContract = (it: It) =>
  describe("SessionStore", () => {
    it.effect("starts a session with its first token, which rotates into a child that rotates too", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token, user } = yield* signIn()
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(session))
        const first = yield* present(token, withInterval, later)
        expect(first._tag).toBe("Rotated")
        expect([first.session.generation, first.session.refreshedAt]).toEqual([1, Option.some(later)])
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(first.session))
        // The rotation answers with the session's user and their identities, read with it.
        const account = yield* accountOf(user.id)
        expect(Option.map(account, (found) => [found.user.id, found.factors])).toEqual(
          Option.some([user.id, []])
        )
        expect(first.account).toEqual(account)
        // And with their factors, oldest first, once they have some.
        const factors = yield* FactorStore
        const verified = factorOf(user.id, { status: "verified" })
        const newer = factorOf(user.id, { createdAt: Time.plus(Fixtures.t0, "1 minute") })
        yield* factors.enrol(newer, Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), defaultLimits)
        yield* factors.enrol(verified, Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), defaultLimits)
        const second = yield* present(first.token, withInterval, Time.plus(later, "1 hour"))
        expect([second._tag, second.session.generation]).toEqual(["Rotated", 2])
        expect(Option.map(second.account, (found) => found.factors)).toEqual(Option.some([verified, newer]))
        expect(second.account).toEqual(yield* accountOf(user.id))
      })
    )

    it.effect(
      "under session limits the session as stored is judged: its sign-in, last refresh and level",
      () =>
        Effect.gen(function* () {
          const limits = (more: Partial<Session.Limits>): Session.Limits => ({
            ...Session.unlimited,
            ...more
          })
          const at = (minutes: number) => Time.plus(Fixtures.t0, Duration.minutes(minutes))
          const judged = (token: Token, minutes: number, limit: Session.Limits) =>
            Effect.map(Effect.either(present(token, withInterval, at(minutes), limit)), (result) =>
              Either.match(result, {
                onLeft: (error) => (error._tag === "SessionExpired" ? error.validity : error._tag),
                onRight: (value) => value._tag
              })
            )
          const hour = Option.some(Duration.hours(1))
          const inactivity = limits({ inactivityTimeout: hour })
          const { token, user } = yield* signIn()
          // A limited refresh rotates as an unlimited one does, stamping the refresh it is judged by.
          const first = yield* present(token, withInterval, at(50), inactivity)
          const second = yield* present(first.token, withInterval, at(110), inactivity)
          expect([first._tag, second._tag]).toEqual(["Rotated", "Rotated"])
          expect(yield* judged(second.token, 171, inactivity)).toBe("inactive")
          // Refused with nothing written: the token is still the live one.
          expect(yield* judged(second.token, 171, limits({ timebox: hour }))).toBe("past_timebox")
          const lowAal = limits({ allowLowAal: Option.some(Duration.minutes(10)) })
          expect(yield* judged(second.token, 171, lowAal)).toBe("Rotated")
          // Once the user has a verified factor, an aal1 session is below what they can reach.
          yield* Effect.flatMap(FactorStore, (factors) =>
            factors.enrol(
              factorOf(user.id, { status: "verified" }),
              Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"),
              defaultLimits
            )
          )
          const { token: atTheEnd } = yield* signIn(user, at(180))
          expect(yield* judged(atTheEnd, 190, lowAal)).toBe("Rotated")
          const { token: pastIt } = yield* signIn(user, at(200))
          expect(yield* judged(pastIt, 211, lowAal)).toBe("low_aal")
        })
    )

    it.effect("lists a user's live sessions; one per user, a newer sign-in supersedes an older one", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const single: Session.Limits = { ...Session.unlimited, singlePerUser: true }
        const { session: older, token, user } = yield* signIn()
        const { session: newer, token: newerToken } = yield* signIn(user, Time.plus(Fixtures.t0, "1 minute"))
        const { session: ended } = yield* signIn(user, Time.plus(Fixtures.t0, "2 minutes"))
        yield* sessions.revoke(ended.id, Time.plus(Fixtures.t0, "3 minutes"))
        yield* signIn()
        const live = yield* sessions.liveOfUser(user.id, Option.none())
        expect(live.map((session) => session.id).sort()).toEqual([older.id, newer.id].sort())
        // Only those used after a moment: the older one's sign-in is not after itself.
        const usedAfter = (at: Date) =>
          Effect.map(sessions.liveOfUser(user.id, Option.some(at)), (found) =>
            found.map((session) => session.id)
          )
        expect(yield* usedAfter(older.createdAt)).toEqual([newer.id])
        expect(yield* usedAfter(newer.createdAt)).toEqual([])
        const refused = yield* Effect.either(present(token, withInterval, later, single))
        expect(Either.match(refused, { onLeft: (error) => error, onRight: (value) => value._tag })).toEqual(
          new RefreshSession.SessionExpired({ sessionId: older.id, validity: "superseded" })
        )
        expect((yield* present(newerToken, withInterval, later, single))._tag).toBe("Rotated")
      })
    )

    it.effect("for any history of presentations and logouts, the store's outcomes are the rule's", () =>
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<AuthStorage>()
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(policies, steps, (policy, history) =>
              Runtime.runPromise(runtime)(followsTheRule(policy, history))
            ),
            { numRuns: 40 }
          )
        )
      })
    )

    it.effect(`${concurrently} parallel presentations inside the reuse interval all get the same child`, () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token } = yield* signIn()
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => Effect.either(present(token, withInterval, later))),
          { concurrency: "unbounded" }
        )
        const children = results.map((result) =>
          Either.match(result, {
            onLeft: (error) => `failed: ${error._tag}`,
            onRight: (refreshed) => Redacted.value(refreshed.token.plaintext)
          })
        )
        expect(new Set(children).size).toBe(1)
        expect(children[0]).toMatch(/^lkr_/)
        expect(results.map(outcome).filter((tag) => tag === "Rotated")).toHaveLength(1)
        const stored = Option.getOrThrow(yield* sessions.findById(session.id))
        expect([stored.generation, stored.revokedAt]).toEqual([1, Option.none()])
        // The child they share is the live token.
        const winner = Either.getOrThrow(Option.getOrThrow(Option.fromNullable(results[0])))
        expect((yield* present(winner.token, withInterval, Time.plus(later, "1 minute")))._tag).toBe(
          "Rotated"
        )
      })
    )

    it.effect(
      `${concurrently} parallel presentations without a reuse interval: one rotates, the reuse revokes the session`,
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const { session, token } = yield* signIn()
          const results = yield* Effect.all(
            Array.from({ length: concurrently }, () => Effect.either(present(token, noInterval, later))),
            { concurrency: "unbounded" }
          )
          const tags = results.map(outcome)
          expect(tags.filter((tag) => tag === "Rotated")).toHaveLength(1)
          expect(tags.filter((tag) => tag === "RefreshTokenAlreadyUsed").length).toBeGreaterThanOrEqual(1)
          expect(
            tags.filter((tag) => !["Rotated", "RefreshTokenAlreadyUsed", "SessionRevoked"].includes(tag))
          ).toEqual([])
          const stored = Option.getOrThrow(yield* sessions.findById(session.id))
          expect(Option.isSome(stored.revokedAt)).toBe(true)
          expect(stored.revokedAt).toEqual(Option.some(later))
          // The family is dead: the child the winner got is refused too.
          const winner = results.flatMap((result) => (Either.isRight(result) ? [result.right] : []))
          const child = yield* Effect.either(
            present(Option.getOrThrow(Option.fromNullable(winner[0])).token, noInterval, later)
          )
          expect(outcome(child)).toBe("SessionRevoked")
        })
    )

    it.effect("the parent after the reuse interval, or an older token at any time, revokes the session", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const a = yield* signIn()
        yield* present(a.token, withInterval, later)
        const late = yield* Effect.either(present(a.token, withInterval, Time.plus(later, "10 seconds")))
        expect(late).toEqual(
          Either.left(expect.objectContaining({ _tag: "RefreshTokenAlreadyUsed", sessionRevoked: true }))
        )
        expect(Option.isSome(Option.getOrThrow(yield* sessions.findById(a.session.id)).revokedAt)).toBe(true)

        const b = yield* signIn()
        const child = yield* present(b.token, withInterval, later)
        yield* present(child.token, withInterval, Time.plus(later, "1 second"))
        // Two generations back, one second after the last rotation: not the parent, so a reuse.
        const grandparent = yield* Effect.either(
          present(b.token, withInterval, Time.plus(later, "2 seconds"))
        )
        expect(outcome(grandparent)).toBe("RefreshTokenAlreadyUsed")
        expect(Option.isSome(Option.getOrThrow(yield* sessions.findById(b.session.id)).revokedAt)).toBe(true)
      })
    )

    it.effect("a reissue hands out the live child again and changes nothing", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token, user } = yield* signIn()
        const rotated = yield* present(token, withInterval, later)
        const again = yield* present(token, withInterval, Time.plus(later, "5 seconds"))
        expect(again._tag).toBe("Reissued")
        expect(Redacted.value(again.token.plaintext)).toBe(Redacted.value(rotated.token.plaintext))
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(rotated.session))
        // Read under the session's lock, the user comes with the session there too.
        expect(again.account).toEqual(yield* accountOf(user.id))
      })
    )

    it.effect("with rotation off a retired token is refused and the session lives on", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token } = yield* signIn()
        const rotated = yield* present(token, noRotation, later)
        const retired = yield* Effect.either(present(token, noRotation, Time.plus(later, "1 second")))
        expect(retired).toEqual(
          Either.left(expect.objectContaining({ _tag: "RefreshTokenAlreadyUsed", sessionRevoked: false }))
        )
        expect(Option.getOrThrow(yield* sessions.findById(session.id)).revokedAt).toEqual(Option.none())
        expect((yield* present(rotated.token, noRotation, Time.plus(later, "1 minute")))._tag).toBe("Rotated")
      })
    )

    it.effect("an unknown token is not found", () =>
      Effect.gen(function* () {
        yield* signIn()
        expect(outcome(yield* Effect.either(present(Fixtures.refreshToken(), withInterval, later)))).toBe(
          "RefreshTokenNotFound"
        )
      })
    )

    it.effect("logout scopes: others keeps the current session, global ends them all, local ends one", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const first = yield* signIn()
        const second = yield* signIn(first.user)
        const third = yield* signIn(first.user)
        const bystander = yield* signIn()

        expect(yield* sessions.revokeOthers(first.user.id, second.session.id, later)).toBe(2)
        const active = (id: Session.SessionId) =>
          Effect.map(
            sessions.findById(id),
            Option.exists((s) => Option.isNone(s.revokedAt))
          )
        expect([
          yield* active(first.session.id),
          yield* active(second.session.id),
          yield* active(third.session.id)
        ]).toEqual([false, true, false])
        expect(outcome(yield* Effect.either(present(first.token, withInterval, later)))).toBe(
          "SessionRevoked"
        )
        expect((yield* present(second.token, withInterval, later))._tag).toBe("Rotated")

        expect(yield* sessions.revokeAll(first.user.id, later)).toBe(1)
        expect(yield* sessions.revokeAll(first.user.id, later)).toBe(0)
        expect(yield* active(second.session.id)).toBe(false)
        expect(yield* active(bystander.session.id)).toBe(true)

        expect(yield* sessions.revoke(bystander.session.id, later)).toBe(true)
        expect(yield* sessions.revoke(bystander.session.id, later)).toBe(false)
        expect(yield* sessions.revoke(Fixtures.session(first.user.id).id, later)).toBe(false)
        expect(Option.getOrThrow(yield* sessions.findById(bystander.session.id)).revokedAt).toEqual(
          Option.some(later)
        )
      })
    )

    it.effect(
      "the other sessions ended (a password change) refuse every token they had, the reuse interval's parent included",
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const kept = yield* signIn()
          const other = yield* signIn(kept.user)
          // The other session rotated a moment ago: its previous token would be reissued the
          // live child inside the interval, were the session not ended.
          const child = yield* present(other.token, withInterval, later)
          expect(
            yield* sessions.revokeOthers(kept.user.id, kept.session.id, Time.plus(later, "1 second"))
          ).toBe(1)
          const soon = Time.plus(later, "2 seconds")
          expect(outcome(yield* Effect.either(present(other.token, withInterval, soon)))).toBe(
            "SessionRevoked"
          )
          expect(outcome(yield* Effect.either(present(child.token, withInterval, soon)))).toBe(
            "SessionRevoked"
          )
          expect((yield* present(kept.token, withInterval, soon))._tag).toBe("Rotated")
        })
    )

    it.effect(
      `the other sessions ended while ${concurrently} refreshes of theirs arrive: none of them lives on`,
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const kept = yield* signIn()
          const others = yield* Effect.all(
            Array.from({ length: 5 }, () => signIn(kept.user)),
            { concurrency: "unbounded" }
          )
          // Each other session presents its live token ten times over while the revocation runs;
          // a presentation may rotate before it, never after.
          const presented = Effect.all(
            others.flatMap((other) =>
              Array.from({ length: concurrently / others.length }, () =>
                Effect.either(present(other.token, withInterval, later))
              )
            ),
            { concurrency: "unbounded" }
          )
          const [results] = yield* Effect.all(
            [presented, sessions.revokeOthers(kept.user.id, kept.session.id, later)],
            { concurrency: "unbounded" }
          )
          const children = results.flatMap((result) => (Either.isRight(result) ? [result.right.token] : []))
          for (const token of [...others.map((other) => other.token), ...children]) {
            expect(
              outcome(yield* Effect.either(present(token, withInterval, Time.plus(later, "1 second"))))
            ).toBe("SessionRevoked")
          }
          for (const other of others) {
            expect(
              Option.isSome(Option.getOrThrow(yield* sessions.findById(other.session.id)).revokedAt)
            ).toBe(true)
          }
          expect((yield* present(kept.token, withInterval, later))._tag).toBe("Rotated")
        })
    )

    it.effect(`${concurrently} concurrent logouts of one session: exactly one revokes it`, () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session } = yield* signIn()
        const results = yield* Effect.all(
          Array.from({ length: concurrently }, () => sessions.revoke(session.id, later)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Boolean)).toHaveLength(1)
      })
    )

    it.effect("deleting a user ends its sessions: soft delete revokes them, hard delete removes them", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const users = yield* UserRepository
        const soft = yield* signIn()
        yield* users.softDelete(soft.user.id, later)
        const revoked = Option.getOrThrow(yield* sessions.findById(soft.session.id))
        expect(revoked.revokedAt).toEqual(Option.some(later))
        expect(outcome(yield* Effect.either(present(soft.token, withInterval, later)))).toBe("SessionRevoked")

        const hard = yield* signIn()
        yield* users.delete(hard.user.id)
        expect(yield* sessions.findById(hard.session.id)).toEqual(Option.none())
        expect(outcome(yield* Effect.either(present(hard.token, withInterval, later)))).toBe(
          "RefreshTokenNotFound"
        )
      })
    )

    it.effect("a raise makes the session aal2 with the factor's method, and its new token rotates", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token, user } = yield* signIn()
        const factorId = FactorId.make(randomUUID())
        const child = Fixtures.refreshToken()
        const raised = Option.getOrThrow(
          yield* sessions.raise({
            sessionId: session.id,
            factorId,
            factorType: "totp",
            child: child.hash,
            now: later
          })
        )
        expect([raised.session.aal, raised.session.factorId, raised.session.generation]).toEqual([
          "aal2",
          Option.some(factorId),
          session.generation + 2
        ])
        expect(raised.session.amr.map((entry) => entry.method)).toEqual([
          "totp",
          ...session.amr.map((entry) => entry.method)
        ])
        expect(raised.session.amr[0]?.timestamp).toBe(Math.floor(later.getTime() / 1000))
        expect(Option.map(raised.account, (account) => account.user.id)).toEqual(Option.some(user.id))
        expect(yield* sessions.findById(session.id)).toEqual(Option.some(raised.session))
        // The pre-verify token is no longer the live one, nor its parent: a reuse even at once.
        expect(outcome(yield* Effect.either(present(token, withInterval, later)))).toBe(
          "RefreshTokenAlreadyUsed"
        )
        expect(Option.getOrThrow(yield* sessions.findById(session.id)).revokedAt).toEqual(Option.some(later))
        expect(outcome(yield* Effect.either(present(child, withInterval, later)))).toBe("SessionRevoked")
      })
    )

    it.effect("after a raise the new token rotates and the session keeps its aal and amr", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token } = yield* signIn()
        // A refresh first: the token it retired keeps a sealed child, which the raise lets go.
        const first = yield* present(token, withInterval, later)
        const child = Fixtures.refreshToken()
        const raised = Option.getOrThrow(
          yield* sessions.raise({
            sessionId: session.id,
            factorId: FactorId.make(randomUUID()),
            factorType: "phone",
            child: child.hash,
            now: later
          })
        )
        const refreshed = yield* present(child, withInterval, Time.plus(later, "1 minute"))
        expect(refreshed._tag).toBe("Rotated")
        expect([refreshed.session.aal, refreshed.session.amr, refreshed.session.factorId]).toEqual([
          "aal2",
          raised.session.amr,
          raised.session.factorId
        ])
        expect(refreshed.session.generation).toBe(first.session.generation + 3)
        // The token that was live before the raise is a reuse, inside the reuse interval too.
        expect(outcome(yield* Effect.either(present(first.token, withInterval, later)))).toBe(
          "RefreshTokenAlreadyUsed"
        )
      })
    )

    it.effect("a second raise keeps one entry per method, with the later time", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session } = yield* signIn()
        const factorId = FactorId.make(randomUUID())
        const raiseAt = (now: Date) =>
          sessions.raise({
            sessionId: session.id,
            factorId,
            factorType: "totp",
            child: Fixtures.refreshToken().hash,
            now
          })
        yield* raiseAt(later)
        const again = Option.getOrThrow(yield* raiseAt(Time.plus(later, "1 hour")))
        expect(again.session.amr.filter((entry) => entry.method === "totp")).toHaveLength(1)
        expect(again.session.amr[0]?.timestamp).toBe(Math.floor(Time.plus(later, "1 hour").getTime() / 1000))
        expect(again.session.generation).toBe(session.generation + 4)
      })
    )

    it.effect("an ended or unknown session is not raised", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session } = yield* signIn()
        yield* sessions.revoke(session.id, later)
        expect(yield* raiseByNewFactor(session.id)).toEqual(Option.none())
        expect(yield* raiseByNewFactor(Session.SessionId.make(randomUUID()))).toEqual(Option.none())
        expect(Option.getOrThrow(yield* sessions.findById(session.id)).aal).toBe("aal1")
      })
    )

    it.effect(`${concurrently} concurrent raises of one session follow one another`, () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session } = yield* signIn()
        const factorId = FactorId.make(randomUUID())
        const children = Array.from({ length: concurrently }, () => Fixtures.refreshToken())
        const results = yield* Effect.all(
          children.map((child) =>
            sessions.raise({
              sessionId: session.id,
              factorId,
              factorType: "totp",
              child: child.hash,
              now: later
            })
          ),
          { concurrency: "unbounded" }
        )
        const generations = results.map((result) => Option.getOrThrow(result).session.generation)
        expect([...generations].sort((a, b) => a - b)).toEqual(
          Array.from({ length: concurrently }, (_, i) => session.generation + 2 * (i + 1))
        )
        const stored = Option.getOrThrow(yield* sessions.findById(session.id))
        expect([
          stored.aal,
          stored.generation,
          stored.amr.filter((entry) => entry.method === "totp").length
        ]).toEqual(["aal2", session.generation + 2 * concurrently, 1])
        // The last raise's token is the live one.
        const last = children[generations.indexOf(stored.generation)]
        if (last === undefined) return yield* Effect.dieMessage("the last raise has a token")
        expect((yield* present(last, withInterval, later))._tag).toBe("Rotated")
      })
    )

    it.effect("a removed factor lowers the sessions it raised to aal1, and only those", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const byA = yield* signIn()
        const stranger = yield* signIn()
        const factorA = FactorId.make(randomUUID())
        const factorB = FactorId.make(randomUUID())
        const raiseBy = (sessionId: Session.SessionId, factorId: FactorId, factorType: "totp" | "phone") =>
          Effect.map(
            sessions.raise({
              sessionId,
              factorId,
              factorType,
              child: Fixtures.refreshToken().hash,
              now: later
            }),
            Option.getOrThrow
          )
        // A session that proved B and then A: A is its factor, B's method stays in its amr.
        yield* raiseBy(byA.session.id, factorB, "totp")
        const childA = Fixtures.refreshToken()
        yield* sessions.raise({
          sessionId: byA.session.id,
          factorId: factorA,
          factorType: "phone",
          child: childA.hash,
          now: later
        })
        // Signed in after A's raise (which ended the user's aal1 sessions), then raised by B.
        const byB = yield* signIn(byA.user)
        const raisedB = yield* raiseBy(byB.session.id, factorB, "totp")
        const strangerRaised = yield* raiseBy(stranger.session.id, factorA, "phone")
        const removedAt = Time.plus(later, "1 minute")
        expect(
          yield* sessions.lowerRaisedBy({
            userId: byA.user.id,
            factorId: factorA,
            factorType: "phone",
            now: removedAt
          })
        ).toBe(1)
        const lowered = Option.getOrThrow(yield* sessions.findById(byA.session.id))
        expect([lowered.aal, lowered.factorId, lowered.amr.map((entry) => entry.method)]).toEqual([
          "aal1",
          Option.none(),
          ["totp", ...byA.session.amr.map((entry) => entry.method)]
        ])
        expect(lowered.updatedAt).toEqual(removedAt)
        // Raised by B, or another user's: as they were.
        expect(yield* sessions.findById(byB.session.id)).toEqual(Option.some(raisedB.session))
        expect(yield* sessions.findById(stranger.session.id)).toEqual(Option.some(strangerRaised.session))
        // Its live token stays live, and the next refresh carries aal1 and the amr left.
        const refreshed = yield* present(childA, withInterval, Time.plus(removedAt, "1 minute"))
        expect(refreshed._tag).toBe("Rotated")
        expect([refreshed.session.aal, refreshed.session.amr, refreshed.session.factorId]).toEqual([
          "aal1",
          lowered.amr,
          Option.none()
        ])
        // Lowered once: again it finds nothing.
        expect(
          yield* sessions.lowerRaisedBy({
            userId: byA.user.id,
            factorId: factorA,
            factorType: "phone",
            now: removedAt
          })
        ).toBe(0)
      })
    )

    it.effect(
      "two sessions of one user raised at once: one is raised, the other ended, never a deadlock",
      () =>
        Effect.gen(function* () {
          for (let round = 0; round < 10; round++) {
            const first = yield* signIn()
            const second = yield* signIn(first.user)
            const raised = yield* Effect.all(
              [raiseByNewFactor(first.session.id), raiseByNewFactor(second.session.id)],
              {
                concurrency: "unbounded"
              }
            )
            // Whichever came first ended the other, still at aal1, before it could be raised.
            expect(raised.filter(Option.isSome)).toHaveLength(1)
          }
        })
    )

    it.effect("a raise ends the user's other aal1 sessions; aal2 ones and other users' stay", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const high = yield* signIn()
        const stranger = yield* signIn()
        yield* raiseByNewFactor(high.session.id)
        const verified = yield* signIn(high.user)
        const low = yield* signIn(high.user)
        yield* raiseByNewFactor(verified.session.id)
        const ended = (id: Session.SessionId) =>
          Effect.map(sessions.findById(id), (found) => Option.isSome(Option.getOrThrow(found).revokedAt))
        expect([
          yield* ended(verified.session.id),
          yield* ended(low.session.id),
          yield* ended(high.session.id),
          yield* ended(stranger.session.id)
        ]).toEqual([false, true, false, false])
      })
    )
    // Before every other test's era, so that only this test's rows are old enough.
    const long = new Date("1991-01-01T00:00:00.000Z")

    it.effect("sessions ended before the cutoff are reaped with their tokens; live and later ones stay", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const cutoff = Time.plus(long, "1 day")
        const first = yield* signIn(Fixtures.user(), long)
        const second = yield* signIn(first.user, long)
        const live = yield* signIn(first.user, long)
        const endedLater = yield* signIn(first.user, long)
        yield* sessions.revoke(first.session.id, long)
        yield* sessions.revoke(second.session.id, long)
        yield* sessions.revoke(endedLater.session.id, cutoff)
        // At most the limit a call.
        expect(yield* sessions.reapEnded(cutoff, 1)).toBe(1)
        expect(yield* sessions.reapEnded(cutoff, 100)).toBe(1)
        expect(yield* sessions.reapEnded(cutoff, 100)).toBe(0)
        expect(yield* sessions.findById(first.session.id)).toEqual(Option.none())
        expect(yield* sessions.findById(second.session.id)).toEqual(Option.none())
        expect(Option.isSome(yield* sessions.findById(endedLater.session.id))).toBe(true)
        // A reaped session's token is unknown; the live session refreshes on.
        expect(outcome(yield* Effect.either(present(first.token, noInterval, cutoff)))).toBe(
          "RefreshTokenNotFound"
        )
        expect((yield* present(live.token, noInterval, cutoff))._tag).toBe("Rotated")
      })
    )

    it.effect(
      "sessions that signed in or were last used before the cutoffs are reaped with their tokens",
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          // Earlier than any other test's sessions, which the cutoffs would take too.
          const epoch = new Date("1981-01-01T00:00:00.000Z")
          const at = (hours: number) => Time.plus(epoch, Duration.hours(hours))
          const early = yield* signIn(Fixtures.user(), epoch)
          const refreshedLate = yield* signIn(early.user, epoch)
          const late = yield* signIn(early.user, at(2))
          yield* present(refreshedLate.token, noInterval, at(3))
          const none = { startedBefore: Option.none<Date>(), idleSince: Option.none<Date>() }
          expect(yield* sessions.reapOutlived(none, 100)).toBe(0)
          // Last used before 1 h: only the early session, its sign-in its last use.
          expect(yield* sessions.reapOutlived({ ...none, idleSince: Option.some(at(1)) }, 100)).toBe(1)
          expect(yield* sessions.findById(early.session.id)).toEqual(Option.none())
          expect(outcome(yield* Effect.either(present(early.token, noInterval, at(4))))).toBe(
            "RefreshTokenNotFound"
          )
          // Signed in before 1 h, though refreshed since: the timebox counts from the sign-in.
          expect(yield* sessions.reapOutlived({ ...none, startedBefore: Option.some(at(1)) }, 100)).toBe(1)
          expect(yield* sessions.findById(refreshedLate.session.id)).toEqual(Option.none())
          expect(Option.isSome(yield* sessions.findById(late.session.id))).toBe(true)
          // At most the limit a call.
          yield* signIn(early.user, at(2))
          const both = { startedBefore: Option.some(at(3)), idleSince: Option.some(at(3)) }
          expect(yield* sessions.reapOutlived(both, 1)).toBe(1)
          expect(yield* sessions.reapOutlived(both, 100)).toBe(1)
          expect(yield* sessions.liveOfUser(early.user.id, Option.none())).toEqual([])
        })
    )

    it.effect("retired tokens last changed before the cutoff are reaped; later and live ones stay", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const { session, token } = yield* signIn(Fixtures.user(), long)
        const child = yield* present(token, noInterval, long)
        const cutoff = Time.plus(long, "1 day")
        const grandchild = yield* present(child.token, noInterval, cutoff)
        // Without a reuse interval no token keeps a sealed child, so the first one last changed at
        // `long`, when it retired; the child at the cutoff, which it is not before.
        expect(yield* sessions.reapRetired(cutoff, 100)).toBe(1)
        expect(yield* sessions.reapRetired(cutoff, 100)).toBe(0)
        const later = Time.plus(cutoff, "1 hour")
        // A reaped token is unknown: no reuse, the session lives on.
        expect(outcome(yield* Effect.either(present(token, noInterval, later)))).toBe("RefreshTokenNotFound")
        expect(Option.getOrThrow(yield* sessions.findById(session.id)).revokedAt).toEqual(Option.none())
        // The child is kept and is still a reuse, which ends the session and its live token.
        expect(outcome(yield* Effect.either(present(child.token, noInterval, later)))).toBe(
          "RefreshTokenAlreadyUsed"
        )
        expect(outcome(yield* Effect.either(present(grandchild.token, noInterval, later)))).toBe(
          "SessionRevoked"
        )
      })
    )
  })
