import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { FactorStore, type StoredFactor } from "../../../../application/auth/ports/FactorStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { defaultLimits, Factor, FactorId } from "../../../../domain/auth/Factor.js"
import { ChallengeId, FactorChallenge } from "../../../../domain/auth/FactorChallenge.js"
import * as RecoveryCodes from "../../../../domain/auth/RecoveryCodes.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"
import { WebAuthnCredential } from "../../../../domain/auth/WebAuthnCredential.js"
import { SecretHash, type UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"

export const digest = (value: string) => SecretHash.make(createHash("sha256").update(value).digest("hex"))

/** A stored user to hang factors on. */
export const storedUser = Effect.gen(function* () {
  const user = Fixtures.user()
  yield* Effect.flatMap(UserRepository, (users) => users.insert(user, [], Option.none()))
  return user.id
})

export const factorOf = (userId: UserId, fields: Partial<ConstructorParameters<typeof Factor>[0]> = {}) =>
  new Factor({
    id: FactorId.make(randomUUID()),
    userId,
    friendlyName: `factor ${randomUUID()}`,
    factorType: "totp",
    status: "unverified",
    phone: Option.none(),
    lastChallengedAt: Option.none(),
    createdAt: Fixtures.t0,
    updatedAt: Fixtures.t0,
    ...fields
  })

/** A stored factor of a new user (a TOTP factor with a secret unless told otherwise). */
export const enrolled = (fields: Partial<ConstructorParameters<typeof Factor>[0]> = {}, userId?: UserId) =>
  Effect.gen(function* () {
    const owner = userId ?? (yield* storedUser)
    const factor = factorOf(owner, fields)
    const secret: Option.Option<string> =
      factor.factorType === "totp" ? Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP") : Option.none()
    yield* Effect.flatMap(FactorStore, (store) => store.enrol(factor, secret, defaultLimits))
    return factor
  })

export const challengeOf = (
  factor: Factor,
  at: Date,
  fields: Partial<ConstructorParameters<typeof FactorChallenge>[0]> = {}
) =>
  new FactorChallenge({
    id: ChallengeId.make(randomUUID()),
    factorId: factor.id,
    ipAddress: "203.0.113.7",
    otpCodeHash: Option.none(),
    webAuthn: Option.none(),
    createdAt: at,
    verifiedAt: Option.none(),
    ...fields
  })

/** A challenge of `factor` made at `at`. */
export const challenged = (
  factor: Factor,
  at: Date,
  fields: Partial<ConstructorParameters<typeof FactorChallenge>[0]> = {}
) =>
  Effect.gen(function* () {
    const challenge = challengeOf(factor, at, fields)
    expect(
      yield* Effect.flatMap(FactorStore, (store) => store.createChallenge(challenge, Option.none()))
    ).toBe(true)
    return challenge
  })

const credential = new WebAuthnCredential({
  credentialId: "Y3JlZGVudGlhbA",
  publicKey: "cHVibGljLWtleQ",
  attestationType: "none",
  signCount: 0,
  transports: ["internal", "hybrid"],
  backupEligible: true,
  backedUp: false
})

const soon = Time.plus(Fixtures.t0, "1 minute")

/** Runs `concurrently` copies of `effect` at once. */
const atOnce = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.all(
    Array.from({ length: concurrently }, () => effect),
    { concurrency: "unbounded" }
  )

export const codesOf = (count: number) =>
  Array.from({ length: count }, () => randomUUID().replaceAll("-", "").slice(0, 16))

export const factorStoreContract = (it: It) =>
  describe("FactorStore", () => {
    it.effect(
      "a factor is enrolled unverified, listed oldest first, found and counted for its user only",
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const userId = yield* storedUser
          const later = yield* enrolled({ createdAt: soon, updatedAt: soon }, userId)
          const first = yield* enrolled({}, userId)
          const phone = Fixtures.phone()
          const texted = yield* enrolled(
            { factorType: "phone", phone: Option.some(phone), createdAt: soon },
            userId
          )
          expect(yield* store.list(userId)).toEqual(
            [first, later, texted].sort(
              (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)
            )
          )
          expect(yield* store.find(userId, first.id)).toEqual(
            Option.some<StoredFactor>({
              factor: first,
              secret: Option.some("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"),
              lastTotpStep: Option.none(),
              webAuthn: Option.none(),
              webAuthnAaguid: Option.none(),
              attempts: RecoveryCodes.noAttempts
            })
          )
          expect(Option.map(yield* store.find(userId, texted.id), (found) => found.factor.phone)).toEqual(
            Option.some(Option.some(phone))
          )
          const stranger = yield* storedUser
          expect(yield* store.find(stranger, first.id)).toEqual(Option.none())
          expect(yield* store.list(stranger)).toEqual([])
          expect(yield* store.count(userId)).toEqual({ enrolled: 3, verified: 0 })
          expect(yield* store.count(stranger)).toEqual({ enrolled: 0, verified: 0 })
        })
    )

    it.effect("a friendly name is the user's once, blank names aside; a number is one factor's", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const userId = yield* storedUser
        yield* enrolled({ friendlyName: "phone app" }, userId)
        const taken = yield* Effect.flip(enrolled({ friendlyName: "phone app" }, userId))
        expect(taken).toMatchObject({ _tag: "FactorNameTaken", friendlyName: "phone app" })
        // Another user may use the name; blank names are the use case's rule, not the index's.
        yield* enrolled({ friendlyName: "phone app" })
        yield* enrolled({ friendlyName: "" }, userId)
        yield* enrolled({ friendlyName: "" }, userId)
        const phone = Fixtures.phone()
        yield* enrolled({ factorType: "phone", phone: Option.some(phone) }, userId)
        const twice = yield* Effect.flip(enrolled({ factorType: "phone", phone: Option.some(phone) }, userId))
        expect(twice).toMatchObject({ _tag: "FactorPhoneTaken", phone })
        expect(yield* store.count(userId)).toEqual({ enrolled: 4, verified: 0 })

        // Of concurrent enrolments under one name, one is stored.
        const contested = yield* storedUser
        const outcomes = yield* atOnce(Effect.either(enrolled({ friendlyName: "contested" }, contested)))
        expect(outcomes.filter((outcome) => outcome._tag === "Right")).toHaveLength(1)
        expect(yield* store.list(contested)).toHaveLength(1)
      })
    )

    it.effect(
      `enrolments of one number by ${concurrently} at once, each replacing the unverified ones it saw: one name, no defect`,
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const userId = yield* storedUser
          const number = Option.some("15555550100")
          yield* enrolled({ factorType: "phone", phone: number, friendlyName: "phone" }, userId)
          // As POST /factors does it: the list read, then the factor stored in place of those of
          // its number. Every enrolment names the factor alike, so the unique index has a say.
          const enrolment = Effect.gen(function* () {
            const seen = yield* store.list(userId)
            const replaces = seen
              .filter(
                (factor) => factor.status === "unverified" && Option.contains(factor.phone, "15555550100")
              )
              .map((factor) => factor.id)
            return yield* store.enrol(
              factorOf(userId, { factorType: "phone", phone: number, friendlyName: "phone" }),
              Option.none(),
              defaultLimits,
              replaces
            )
          })
          // Each worker enrols four times in a row, so that the lists they read differ.
          const outcomes = (yield* atOnce(
            Effect.all(Array.from({ length: 4 }, () => Effect.either(enrolment)))
          )).flat()
          // Each either replaced what stood or met the name of one that did; nothing else.
          for (const outcome of outcomes) {
            if (Either.isLeft(outcome)) expect(outcome.left._tag).toBe("FactorNameTaken")
          }
          expect(outcomes.some(Either.isRight)).toBe(true)
          const left = yield* store.list(userId)
          expect(left.map((factor) => [factor.friendlyName, factor.phone])).toEqual([["phone", number]])
        })
    )

    it.effect(
      `an enrolment past a limit is refused; of ${concurrently} at once, the limit's worth pass`,
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const tagOf = (outcome: Either.Either<void, { readonly _tag: string }>) =>
            Either.match(outcome, { onLeft: (error) => error._tag, onRight: () => "Enrolled" })
          // Every status counts towards MFA_MAX_ENROLLED_FACTORS; recovery codes do not.
          const userId = yield* storedUser
          const limits = { maxEnrolled: 3, maxVerified: 10 }
          const recovery = factorOf(userId, { factorType: "recovery_code", status: "verified" })
          yield* store.createRecoveryCodes(recovery, [digest(randomUUID())])
          const outcomes = yield* atOnce(
            Effect.either(Effect.suspend(() => store.enrol(factorOf(userId), Option.none(), limits)))
          )
          const tags = outcomes.map(tagOf)
          expect(tags.filter((tag) => tag === "Enrolled")).toHaveLength(3)
          expect(tags.filter((tag) => tag === "FactorLimitReached")).toHaveLength(concurrently - 3)
          expect(yield* store.count(userId)).toEqual({ enrolled: 3, verified: 0 })
          // Another user's factors are theirs to count.
          const other = yield* enrolled({}, yield* storedUser)
          expect(yield* store.count(other.userId)).toEqual({ enrolled: 1, verified: 0 })

          // MFA_MAX_VERIFIED_FACTORS counts the verified ones only.
          const verifiedUser = yield* storedUser
          const strict = { maxEnrolled: 10, maxVerified: 1 }
          const first = yield* enrolled({}, verifiedUser)
          yield* store.enrol(factorOf(verifiedUser), Option.none(), strict)
          yield* store.markVerified(verifiedUser, first.id, soon, Option.none())
          expect(
            tagOf(yield* Effect.either(store.enrol(factorOf(verifiedUser), Option.none(), strict)))
          ).toBe("FactorLimitReached")
          expect(yield* store.count(verifiedUser)).toEqual({ enrolled: 2, verified: 1 })
        })
    )

    it.effect(`a factor is verified once; of ${concurrently} at once, one verifies it`, () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const factor = yield* enrolled()
        const verified = yield* store.markVerified(factor.userId, factor.id, soon, Option.none())
        expect(verified).toEqual(Option.some(new Factor({ ...factor, status: "verified", updatedAt: soon })))
        expect(yield* store.markVerified(factor.userId, factor.id, soon, Option.none())).toEqual(
          Option.none()
        )
        expect(yield* store.count(factor.userId)).toEqual({ enrolled: 1, verified: 1 })
        const stranger = yield* storedUser
        const other = yield* enrolled()
        expect(yield* store.markVerified(stranger, other.id, soon, Option.none())).toEqual(Option.none())

        const key = yield* enrolled({ factorType: "webauthn" })
        const aaguid = randomUUID()
        yield* store.markVerified(
          key.userId,
          key.id,
          soon,
          Option.some({ credential, aaguid: Option.some(aaguid) })
        )
        const found = yield* store.find(key.userId, key.id)
        expect(
          Option.map(found, ({ webAuthn, webAuthnAaguid, secret }) => ({ webAuthn, webAuthnAaguid, secret }))
        ).toEqual(
          Option.some({
            webAuthn: Option.some(credential),
            webAuthnAaguid: Option.some(aaguid),
            secret: Option.none()
          })
        )

        const contested = yield* enrolled()
        const outcomes = yield* atOnce(
          store.markVerified(contested.userId, contested.id, soon, Option.none())
        )
        expect(outcomes.filter(Option.isSome)).toHaveLength(1)
      })
    )

    it.effect("a factor's name and number change, within the same uniqueness", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const userId = yield* storedUser
        const phone = Fixtures.phone()
        const factor = yield* enrolled({ factorType: "phone", phone: Option.some(phone) }, userId)
        const other = yield* enrolled({ friendlyName: "other" }, userId)
        const later = Time.plus(Fixtures.t0, "2 minutes")
        const newPhone = Fixtures.phone()
        const renamed = yield* store.update(
          userId,
          factor.id,
          { friendlyName: Option.some("work phone"), phone: Option.some(newPhone) },
          later
        )
        const expected = new Factor({
          ...factor,
          friendlyName: "work phone",
          phone: Option.some(newPhone),
          updatedAt: later
        })
        expect(renamed).toEqual(Option.some(expected))
        expect(
          yield* store.update(userId, other.id, { friendlyName: Option.none(), phone: Option.none() }, later)
        ).toEqual(Option.some(new Factor({ ...other, updatedAt: later })))
        const clash = yield* Effect.flip(
          store.update(
            userId,
            other.id,
            { friendlyName: Option.some("work phone"), phone: Option.none() },
            later
          )
        )
        expect(clash).toMatchObject({ _tag: "FactorNameTaken", friendlyName: "work phone" })
        const stranger = yield* storedUser
        expect(
          yield* store.update(
            stranger,
            factor.id,
            { friendlyName: Option.some("mine"), phone: Option.none() },
            later
          )
        ).toEqual(Option.none())
        expect(Option.map(yield* store.find(userId, factor.id), (found) => found.factor)).toEqual(
          Option.some(expected)
        )
      })
    )

    it.effect("a factor is removed with its challenges; a user's factors all at once", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const userId = yield* storedUser
        const one = yield* enrolled({}, userId)
        const two = yield* enrolled({ createdAt: soon }, userId)
        const challenge = yield* challenged(one, soon)
        const stranger = yield* storedUser
        expect(yield* store.remove(stranger, one.id)).toEqual(Option.none())
        expect(yield* store.remove(userId, one.id)).toEqual(
          Option.some(new Factor({ ...one, lastChallengedAt: Option.some(soon) }))
        )
        expect(yield* store.remove(userId, one.id)).toEqual(Option.none())
        expect(yield* store.findChallenge(one.id, challenge.id)).toEqual(Option.none())
        const three = yield* enrolled({ createdAt: Time.plus(soon, "1 minute") }, userId)
        expect(yield* store.removeAll(userId)).toEqual(expect.arrayContaining([two, three]))
        expect(yield* store.list(userId)).toEqual([])
        expect(yield* store.removeAll(userId)).toEqual([])
      })
    )

    it.effect("abandoned factors go: unverified, never challenged, created before the cutoff", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        // Long before any other test's rows, so that the cutoff reaches only these.
        const long = new Date("2001-01-01T00:00:00.000Z")
        const cutoff = Time.plus(long, "5 minutes")
        const userId = yield* storedUser
        const abandoned = yield* enrolled({ createdAt: long, updatedAt: long }, userId)
        const atCutoff = yield* enrolled({ createdAt: cutoff, updatedAt: cutoff }, userId)
        const withChallenge = yield* enrolled({ createdAt: long, updatedAt: long }, userId)
        yield* challenged(withChallenge, long)
        const verified = yield* enrolled({ createdAt: long, updatedAt: long }, userId)
        yield* store.markVerified(userId, verified.id, long, Option.none())
        expect(yield* store.removeAbandoned(cutoff, 100)).toBe(1)
        const left = (yield* store.list(userId)).map((factor) => factor.id)
        expect(left).not.toContain(abandoned.id)
        expect(left).toEqual(expect.arrayContaining([atCutoff.id, withChallenge.id, verified.id]))
        expect(yield* store.removeAbandoned(cutoff, 100)).toBe(0)
      })
    )

    it.effect(
      `a TOTP step is accepted only after the last, with its challenge; of ${concurrently} with one step, one`,
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const factor = yield* enrolled()
          const use = (step: number) =>
            Effect.flatMap(challenged(factor, soon), (challenge) =>
              Effect.map(store.useChallenge(factor.id, challenge.id, soon, Option.some(step)), (use) => ({
                challenge,
                outcome: use._tag
              }))
            )
          expect((yield* use(1000)).outcome).toBe("Used")
          const replayed = yield* use(1000)
          expect(replayed.outcome).toBe("StepRefused")
          // Refused, nothing is written: the challenge is still open for a later step.
          expect(
            Option.flatMap(
              yield* store.findChallenge(factor.id, replayed.challenge.id),
              (found) => found.verifiedAt
            )
          ).toEqual(Option.none())
          expect((yield* use(999)).outcome).toBe("StepRefused")
          expect(
            (yield* store.useChallenge(factor.id, replayed.challenge.id, soon, Option.some(1001)))._tag
          ).toBe("Used")
          expect(
            Option.flatMap(yield* store.find(factor.userId, factor.id), (found) => found.lastTotpStep)
          ).toEqual(Option.some(1001))

          // A current step: ~59 million, well inside the column's range. Each attempt with a
          // challenge of its own, so only the step is contested.
          const step = Math.floor(Date.UTC(2026, 0, 1) / 30_000)
          const contested = yield* enrolled()
          const challenges = yield* Effect.forEach(Array.from({ length: concurrently }), () =>
            challenged(contested, soon)
          )
          const outcomes = yield* Effect.all(
            challenges.map((challenge) =>
              store.useChallenge(contested.id, challenge.id, soon, Option.some(step))
            ),
            { concurrency: "unbounded" }
          )
          expect(outcomes.filter((outcome) => outcome._tag === "Used")).toHaveLength(1)
          expect(outcomes.filter((outcome) => outcome._tag === "StepRefused")).toHaveLength(concurrently - 1)
        })
    )

    it.effect("a WebAuthn factor's counter only moves up, once per value; 0 stays usable at 0", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const counted = yield* enrolled({ factorType: "webauthn" })
        expect(yield* store.advanceWebAuthnCounter(counted.id, 1)).toBe(false)
        yield* store.markVerified(
          counted.userId,
          counted.id,
          soon,
          Option.some({
            credential: new WebAuthnCredential({ ...credential, signCount: 5 }),
            aaguid: Option.none()
          })
        )
        expect(yield* store.advanceWebAuthnCounter(counted.id, 5)).toBe(false)
        expect(yield* store.advanceWebAuthnCounter(counted.id, 0)).toBe(false)
        expect(yield* store.advanceWebAuthnCounter(counted.id, 6)).toBe(true)
        expect(yield* store.advanceWebAuthnCounter(counted.id, 6)).toBe(false)
        const stored = Option.flatMap(
          yield* store.find(counted.userId, counted.id),
          (found) => found.webAuthn
        )
        expect(Option.map(stored, (found) => [found.signCount, found.credentialId])).toEqual(
          Option.some([6, credential.credentialId])
        )
        const contested = yield* atOnce(store.advanceWebAuthnCounter(counted.id, 7))
        expect(contested.filter((won) => won)).toHaveLength(1)

        const uncounted = yield* enrolled({ factorType: "webauthn" })
        yield* store.markVerified(
          uncounted.userId,
          uncounted.id,
          soon,
          Option.some({ credential, aaguid: Option.none() })
        )
        expect(yield* store.advanceWebAuthnCounter(uncounted.id, 0)).toBe(true)
        expect(yield* store.advanceWebAuthnCounter(uncounted.id, 0)).toBe(true)
        expect(yield* store.advanceWebAuthnCounter(FactorId.make(randomUUID()), 1)).toBe(false)
      })
    )

    it.effect(
      `a secret is replaced only from its stored form; of ${concurrently} at once, one replaces it`,
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const factor = yield* enrolled()
          const secretOf = (id: FactorId) =>
            Effect.map(
              store.find(factor.userId, id),
              Option.flatMap((found) => found.secret)
            )
          const kept = Option.getOrThrow(yield* secretOf(factor.id))
          expect(yield* store.replaceSecret(factor.id, "another form", "resealed")).toBe(false)
          expect(yield* secretOf(factor.id)).toEqual(Option.some(kept))
          const contested = yield* atOnce(store.replaceSecret(factor.id, kept, "resealed"))
          expect(contested.filter((won) => won)).toHaveLength(1)
          expect(yield* secretOf(factor.id)).toEqual(Option.some("resealed"))
          expect(yield* store.replaceSecret(FactorId.make(randomUUID()), kept, "resealed")).toBe(false)
        })
    )

    it.effect("a challenge is stored with its digest or ceremony and stamps its factor", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const phone = yield* enrolled({ factorType: "phone", phone: Option.some(Fixtures.phone()) })
        const texted = yield* challenged(phone, soon, { otpCodeHash: Option.some(digest("123456")) })
        expect(yield* store.findChallenge(phone.id, texted.id)).toEqual(Option.some(texted))
        expect(
          Option.map(yield* store.find(phone.userId, phone.id), (found) => found.factor.lastChallengedAt)
        ).toEqual(Option.some(Option.some(soon)))
        const key = yield* enrolled({ factorType: "webauthn" })
        const ceremony = new WebAuthnCeremony({
          type: "create",
          challengeHash: digest("challenge"),
          userVerification: "preferred"
        })
        const asked = yield* challenged(key, soon, {
          webAuthn: Option.some(ceremony),
          ipAddress: "2001:db8::1"
        })
        expect(yield* store.findChallenge(key.id, asked.id)).toEqual(Option.some(asked))
        // Only under its own factor.
        expect(yield* store.findChallenge(phone.id, asked.id)).toEqual(Option.none())
        // A factor gone takes no challenge.
        const gone = factorOf(phone.userId)
        expect(yield* store.createChallenge(challengeOf(gone, soon), Option.none())).toBe(false)
      })
    )

    it.effect(`a challenge within the pacing is refused; of ${concurrently} at once, one is made`, () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const factor = yield* enrolled({ factorType: "phone", phone: Option.some(Fixtures.phone()) })
        yield* challenged(factor, Fixtures.t0)
        const early = challengeOf(factor, Time.plus(Fixtures.t0, "30 seconds"))
        const refused = yield* Effect.flip(
          store.createChallenge(early, Option.some(Time.minus(early.createdAt, "1 minute")))
        )
        expect(refused).toMatchObject({ _tag: "ChallengedTooSoon", lastChallengedAt: Fixtures.t0 })
        expect(yield* store.findChallenge(factor.id, early.id)).toEqual(Option.none())
        const late = challengeOf(factor, Time.plus(Fixtures.t0, "61 seconds"))
        expect(yield* store.createChallenge(late, Option.some(Time.minus(late.createdAt, "1 minute")))).toBe(
          true
        )

        const fresh = yield* enrolled({ factorType: "phone", phone: Option.some(Fixtures.phone()) })
        const outcomes = yield* atOnce(
          Effect.either(
            store.createChallenge(challengeOf(fresh, soon), Option.some(Time.minus(soon, "1 minute")))
          )
        )
        expect(outcomes.filter((outcome) => outcome._tag === "Right")).toHaveLength(1)
      })
    )

    it.effect(`a challenge is used once; of ${concurrently} at once, one uses it`, () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const factor = yield* enrolled()
        const challenge = yield* challenged(factor, Fixtures.t0)
        const other = yield* enrolled()
        const none = Option.none()
        expect(yield* store.useChallenge(other.id, challenge.id, soon, none)).toEqual({ _tag: "Gone" })
        const used = new FactorChallenge({ ...challenge, verifiedAt: Option.some(soon) })
        expect(yield* store.useChallenge(factor.id, challenge.id, soon, none)).toEqual({
          _tag: "Used",
          challenge: used
        })
        expect(yield* store.useChallenge(factor.id, challenge.id, soon, none)).toEqual({ _tag: "Gone" })
        expect(yield* store.findChallenge(factor.id, challenge.id)).toEqual(Option.some(used))

        const contested = yield* challenged(factor, soon)
        const outcomes = yield* atOnce(store.useChallenge(factor.id, contested.id, soon, none))
        expect(outcomes.filter((outcome) => outcome._tag === "Used")).toHaveLength(1)
        // With a step too: the challenge is contested first, so the others find it spent.
        const stepped = yield* challenged(factor, soon)
        const withStep = yield* atOnce(store.useChallenge(factor.id, stepped.id, soon, Option.some(7)))
        expect(withStep.filter((outcome) => outcome._tag === "Used")).toHaveLength(1)
        expect(withStep.filter((outcome) => outcome._tag === "Gone")).toHaveLength(concurrently - 1)
      })
    )

    it.effect(`a challenge is taken once; of ${concurrently} at once, one takes it`, () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const factor = yield* enrolled({ factorType: "webauthn" })
        const challenge = yield* challenged(factor, Fixtures.t0)
        expect(yield* store.takeChallenge(factor.id, challenge.id)).toEqual(Option.some(challenge))
        expect(yield* store.takeChallenge(factor.id, challenge.id)).toEqual(Option.none())
        expect(yield* store.findChallenge(factor.id, challenge.id)).toEqual(Option.none())

        const contested = yield* challenged(factor, soon)
        const outcomes = yield* atOnce(store.takeChallenge(factor.id, contested.id))
        expect(outcomes.filter(Option.isSome)).toHaveLength(1)
      })
    )

    it.effect("challenges created before the cutoff are reaped", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        // Before the abandoned factors' era, so that only these challenges are old enough.
        const long = new Date("1991-01-01T00:00:00.000Z")
        const cutoff = Time.plus(long, "1 day")
        const factor = yield* enrolled({ createdAt: long, updatedAt: long })
        const old = yield* challenged(factor, long)
        const spent = yield* challenged(factor, long)
        yield* store.useChallenge(factor.id, spent.id, long, Option.none())
        const kept = yield* challenged(factor, cutoff)
        // At most the limit a call.
        expect(yield* store.reapChallenges(cutoff, 1)).toBe(1)
        expect(yield* store.reapChallenges(cutoff, 100)).toBe(1)
        expect(yield* store.findChallenge(factor.id, old.id)).toEqual(Option.none())
        expect(yield* store.findChallenge(factor.id, kept.id)).toEqual(Option.some(kept))
        expect(yield* store.reapChallenges(cutoff, 100)).toBe(0)
      })
    )

    it.effect("recovery codes: one set per user, used once each, counted, replaced", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const userId = yield* storedUser
        expect(yield* store.recoveryCodes(userId)).toEqual(Option.none())
        const totp = yield* enrolled({}, userId)
        yield* store.markVerified(userId, totp.id, Fixtures.t0, Option.none())
        const set = factorOf(userId, {
          factorType: "recovery_code",
          status: "verified",
          friendlyName: RecoveryCodes.defaultFriendlyName
        })
        const codes = codesOf(RecoveryCodes.setSize)
        yield* store.createRecoveryCodes(set, codes.map(digest))
        expect(yield* store.recoveryCodes(userId)).toEqual(
          Option.some({
            factor: set,
            status: { total: RecoveryCodes.setSize, remaining: RecoveryCodes.setSize }
          })
        )
        // Listed with the factors, never counted towards the limits.
        expect((yield* store.list(userId)).map((factor) => factor.id)).toContain(set.id)
        expect(yield* store.count(userId)).toEqual({ enrolled: 1, verified: 1 })

        const second = factorOf(userId, { factorType: "recovery_code", status: "verified" })
        expect(yield* Effect.flip(store.createRecoveryCodes(second, codesOf(2).map(digest)))).toMatchObject({
          _tag: "RecoveryCodesExist"
        })
        const stranger = yield* storedUser
        const misnamed = factorOf(stranger, { factorType: "recovery_code", friendlyName: "dup" })
        yield* enrolled({ friendlyName: "dup" }, stranger)
        expect(yield* Effect.flip(store.createRecoveryCodes(misnamed, codesOf(2).map(digest)))).toMatchObject(
          {
            _tag: "FactorNameTaken"
          }
        )
        expect(yield* store.recoveryCodes(stranger)).toEqual(Option.none())

        const policy = RecoveryCodes.lockoutPolicy
        const attempt = (code: string) =>
          Effect.map(store.attemptRecoveryCode(userId, Option.some(digest(code)), policy, soon), (found) =>
            Option.map(found, ({ outcome }) => outcome._tag)
          )
        const first = codes[0] ?? ""
        expect(yield* store.attemptRecoveryCode(userId, Option.some(digest(first)), policy, soon)).toEqual(
          Option.some({ factor: set, outcome: RecoveryCodes.Outcome.Accepted() })
        )
        expect(yield* attempt(first)).toEqual(Option.some("Rejected"))
        expect(yield* store.recoveryCodes(userId)).toEqual(
          Option.some({
            factor: set,
            status: { total: RecoveryCodes.setSize, remaining: RecoveryCodes.setSize - 1 }
          })
        )
        expect(yield* store.attemptRecoveryCode(stranger, Option.some(digest(first)), policy, soon)).toEqual(
          Option.none()
        )

        const later = Time.plus(Fixtures.t0, "1 hour")
        const fresh = codesOf(RecoveryCodes.setSize)
        const replaced = yield* store.replaceRecoveryCodes(userId, fresh.map(digest), later)
        expect(replaced).toEqual(Option.some(new Factor({ ...set, updatedAt: later })))
        expect(yield* attempt(codes[1] ?? "")).toEqual(Option.some("Rejected"))
        expect(yield* attempt(fresh[0] ?? "")).toEqual(Option.some("Accepted"))
        expect(Option.map(yield* store.recoveryCodes(userId), ({ status }) => status)).toEqual(
          Option.some({ total: RecoveryCodes.setSize, remaining: RecoveryCodes.setSize - 1 })
        )
        expect(yield* store.replaceRecoveryCodes(stranger, fresh.map(digest), later)).toEqual(Option.none())

        // The set goes with its factor.
        yield* store.remove(userId, set.id)
        expect(yield* store.recoveryCodes(userId)).toEqual(Option.none())
      })
    )

    it.effect("recovery-code failures lock the set for the policy's time; a new set clears the lock", () =>
      Effect.gen(function* () {
        const store = yield* FactorStore
        const userId = yield* storedUser
        const set = factorOf(userId, { factorType: "recovery_code", status: "verified" })
        const codes = codesOf(RecoveryCodes.setSize)
        yield* store.createRecoveryCodes(set, codes.map(digest))
        const policy = RecoveryCodes.lockoutPolicy
        const attemptAt = (code: Option.Option<string>, at: Date) =>
          Effect.map(store.attemptRecoveryCode(userId, Option.map(code, digest), policy, at), (found) =>
            Option.map(found, ({ outcome }) => outcome)
          )
        const right = codes[0] ?? ""
        for (let failure = 1; failure < policy.maxFailures; failure++) {
          expect(yield* attemptAt(failure % 2 === 0 ? Option.none() : Option.some("wrong"), soon)).toEqual(
            Option.some(
              RecoveryCodes.Outcome.Rejected({
                attempts: { failedAttempts: failure, lockedUntil: Option.none() }
              })
            )
          )
        }
        const until = Time.plus(soon, policy.lockFor)
        expect(yield* attemptAt(Option.some("wrong"), soon)).toEqual(
          Option.some(
            RecoveryCodes.Outcome.Rejected({
              attempts: { failedAttempts: 0, lockedUntil: Option.some(until) }
            })
          )
        )
        expect(Option.map(yield* store.find(userId, set.id), ({ attempts }) => attempts)).toEqual(
          Option.some({ failedAttempts: 0, lockedUntil: Option.some(until) })
        )
        // Locked: even the right code is not looked at, and stays unused.
        expect(yield* attemptAt(Option.some(right), Time.minus(until, "1 second"))).toEqual(
          Option.some(RecoveryCodes.Outcome.Locked({ until }))
        )
        expect(Option.map(yield* store.recoveryCodes(userId), ({ status }) => status.remaining)).toEqual(
          Option.some(RecoveryCodes.setSize)
        )
        // The lock ends at its time exactly; a success clears the record.
        expect(yield* attemptAt(Option.some(right), until)).toEqual(
          Option.some(RecoveryCodes.Outcome.Accepted())
        )
        expect(Option.map(yield* store.find(userId, set.id), ({ attempts }) => attempts)).toEqual(
          Option.some(RecoveryCodes.noAttempts)
        )

        for (let failure = 0; failure < policy.maxFailures; failure++)
          yield* attemptAt(Option.some("wrong"), until)
        yield* store.replaceRecoveryCodes(userId, codesOf(RecoveryCodes.setSize).map(digest), until)
        expect(Option.map(yield* store.find(userId, set.id), ({ attempts }) => attempts)).toEqual(
          Option.some(RecoveryCodes.noAttempts)
        )
      })
    )

    it.effect(
      `${concurrently} recovery-code attempts at once: one code is used once, failures counted one by one`,
      () =>
        Effect.gen(function* () {
          const store = yield* FactorStore
          const policy = RecoveryCodes.lockoutPolicy
          const userId = yield* storedUser
          const codes = codesOf(RecoveryCodes.setSize)
          yield* store.createRecoveryCodes(
            factorOf(userId, { factorType: "recovery_code", status: "verified" }),
            codes.map(digest)
          )
          const outcomes = yield* atOnce(
            store.attemptRecoveryCode(userId, Option.some(digest(codes[0] ?? "")), policy, soon)
          )
          const tags = outcomes.flatMap((found) =>
            Option.toArray(Option.map(found, ({ outcome }) => outcome._tag))
          )
          expect(tags.filter((tag) => tag === "Accepted")).toHaveLength(1)
          // The rest found the code used: failures, until the lock, then locked.
          expect(tags.filter((tag) => tag === "Rejected")).toHaveLength(policy.maxFailures)
          expect(tags.filter((tag) => tag === "Locked")).toHaveLength(concurrently - 1 - policy.maxFailures)
        })
    )
  })
