import { randomBytes, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { PasskeyStore } from "../../../../application/auth/ports/PasskeyStore.js"
import * as Passkey from "../../../../domain/auth/Passkey.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"
import type { UserId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"
import { digest, storedUser } from "./FactorStoreContract.js"

/** A fresh credential id, base64url as the ceremony library gives it (lengths vary by authenticator). */
export const credentialId = () => randomBytes(16 + Math.floor(Math.random() * 48)).toString("base64url")

export const passkeyOf = (
  userId: UserId,
  fields: Partial<ConstructorParameters<typeof Passkey.Passkey>[0]> = {}
) =>
  new Passkey.Passkey({
    id: Passkey.PasskeyId.make(randomUUID()),
    userId,
    credentialId: credentialId(),
    // A COSE key is about 77 bytes: longer than a line of base64, which must not matter.
    publicKey: randomBytes(77).toString("base64url"),
    attestationType: "none",
    aaguid: Option.some(randomUUID()),
    signCount: 0,
    transports: ["internal", "hybrid"],
    backupEligible: true,
    backedUp: false,
    friendlyName: Passkey.defaultFriendlyName,
    createdAt: Fixtures.t0,
    updatedAt: Fixtures.t0,
    lastUsedAt: Option.none(),
    ...fields
  })

export const challengeOf = (
  userId: Option.Option<UserId>,
  createdAt: Date,
  fields: Partial<ConstructorParameters<typeof Passkey.PasskeyChallenge>[0]> = {}
) =>
  new Passkey.PasskeyChallenge({
    id: Passkey.PasskeyChallengeId.make(randomUUID()),
    userId,
    purpose: Option.isSome(userId) ? "registration" : "authentication",
    ceremony: new WebAuthnCeremony({
      type: Option.isSome(userId) ? "create" : "request",
      challengeHash: digest(randomUUID()),
      userVerification: "preferred"
    }),
    createdAt,
    expiresAt: Passkey.expiresAt(createdAt, Passkey.defaultChallengeLifetime),
    ...fields
  })

const maxPerUser = Passkey.defaultMaxPerUser

/** A stored passkey of `userId` (of a new user unless given). */
const registered = (
  fields: Partial<ConstructorParameters<typeof Passkey.Passkey>[0]> = {},
  userId?: UserId
) =>
  Effect.gen(function* () {
    const passkey = passkeyOf(userId ?? (yield* storedUser), fields)
    yield* Effect.flatMap(PasskeyStore, (store) => store.register(passkey, maxPerUser))
    return passkey
  })

const challenged = (userId: Option.Option<UserId>, at: Date) =>
  Effect.gen(function* () {
    const challenge = challengeOf(userId, at)
    yield* Effect.flatMap(PasskeyStore, (store) => store.createChallenge(challenge))
    return challenge
  })

const soon = Time.plus(Fixtures.t0, "1 minute")

/** Runs `concurrently` copies of `effect` at once. */
const atOnce = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.all(
    Array.from({ length: concurrently }, () => effect),
    { concurrency: "unbounded" }
  )

export const passkeyStoreContract = (it: It) =>
  describe("PasskeyStore", () => {
    it.effect("a passkey is registered as given, listed oldest first, for its user only", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const userId = yield* storedUser
        const later = yield* registered({ createdAt: soon, updatedAt: soon }, userId)
        // Every field round-trips: no AAGUID, no transports, the largest counter, a last use.
        const first = yield* registered(
          {
            aaguid: Option.none(),
            transports: [],
            signCount: 4_294_967_295,
            attestationType: "packed",
            backupEligible: false,
            backedUp: true,
            friendlyName: "iCloud Keychain",
            lastUsedAt: Option.some(soon)
          },
          userId
        )
        expect(yield* store.list(userId)).toEqual([first, later])
        const stranger = yield* storedUser
        expect(yield* store.list(stranger)).toEqual([])
      })
    )

    it.effect("a passkey is found by its credential id only with the user its handle names", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const passkey = yield* registered()
        expect(yield* store.findByCredential(passkey.userId, passkey.credentialId)).toEqual(
          Option.some(passkey)
        )
        const stranger = yield* storedUser
        expect(yield* store.findByCredential(stranger, passkey.credentialId)).toEqual(Option.none())
        expect(yield* store.findByCredential(passkey.userId, credentialId())).toEqual(Option.none())
        expect(yield* store.findByCredential(passkey.userId, "not base64url!")).toEqual(Option.none())
      })
    )

    it.effect("a credential id is stored once, whoever registers it; of concurrent ones, one", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const passkey = yield* registered()
        const again = yield* Effect.flip(registered({ credentialId: passkey.credentialId }))
        expect(again).toEqual(
          expect.objectContaining({ _tag: "CredentialTaken", credentialId: passkey.credentialId })
        )
        const mine = yield* Effect.flip(registered({ credentialId: passkey.credentialId }, passkey.userId))
        expect(mine._tag).toBe("CredentialTaken")
        expect(yield* store.list(passkey.userId)).toEqual([passkey])

        const contested = credentialId()
        const outcomes = yield* atOnce(Effect.either(registered({ credentialId: contested })))
        expect(outcomes.filter((outcome) => outcome._tag === "Right")).toHaveLength(1)
        expect(
          outcomes.filter((outcome) => outcome._tag === "Left" && outcome.left._tag === "CredentialTaken")
        ).toHaveLength(concurrently - 1)
      })
    )

    it.effect(`a user registers up to the limit; of ${concurrently} at once, only as many as it allows`, () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const userId = yield* storedUser
        yield* store.register(passkeyOf(userId), 2)
        yield* store.register(passkeyOf(userId), 2)
        const over = yield* Effect.flip(store.register(passkeyOf(userId), 2))
        expect(over).toEqual(expect.objectContaining({ _tag: "TooManyPasskeys", maxPerUser: 2 }))
        expect(yield* store.list(userId)).toHaveLength(2)
        // A higher limit lets one more in; another user's count is their own.
        yield* store.register(passkeyOf(userId), 3)
        yield* store.register(passkeyOf(yield* storedUser), 1)

        const racing = yield* storedUser
        const outcomes = yield* atOnce(
          Effect.either(Effect.suspend(() => store.register(passkeyOf(racing), 3)))
        )
        expect(outcomes.filter((outcome) => outcome._tag === "Right")).toHaveLength(3)
        expect(
          outcomes.filter((outcome) => outcome._tag === "Left" && outcome.left._tag === "TooManyPasskeys")
        ).toHaveLength(concurrently - 3)
        expect(yield* store.list(racing)).toHaveLength(3)
      })
    )

    it.effect("a passkey is renamed by its user only", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const passkey = yield* registered()
        const renamed = new Passkey.Passkey({ ...passkey, friendlyName: "work laptop", updatedAt: soon })
        expect(yield* store.rename(passkey.userId, passkey.id, "work laptop", soon)).toEqual(
          Option.some(renamed)
        )
        const stranger = yield* storedUser
        expect(yield* store.rename(stranger, passkey.id, "mine", soon)).toEqual(Option.none())
        expect(
          yield* store.rename(passkey.userId, Passkey.PasskeyId.make(randomUUID()), "gone", soon)
        ).toEqual(Option.none())
        expect(yield* store.list(passkey.userId)).toEqual([renamed])
      })
    )

    it.effect("a passkey is removed by its user only; a user's passkeys all at once", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const userId = yield* storedUser
        const one = yield* registered({}, userId)
        const two = yield* registered({ createdAt: soon }, userId)
        const three = yield* registered({ createdAt: soon }, userId)
        const stranger = yield* storedUser
        const theirs = yield* registered({}, stranger)
        expect(yield* store.remove(stranger, one.id)).toEqual(Option.none())
        expect(yield* store.remove(userId, one.id)).toEqual(Option.some(one))
        expect(yield* store.remove(userId, one.id)).toEqual(Option.none())
        expect(yield* store.findByCredential(userId, one.credentialId)).toEqual(Option.none())
        // Its credential id may be registered again once it is gone.
        yield* store.register(passkeyOf(stranger, { credentialId: one.credentialId }), maxPerUser)
        expect(yield* store.removeAll(userId)).toEqual(expect.arrayContaining([two, three]))
        expect(yield* store.list(userId)).toEqual([])
        expect(yield* store.removeAll(userId)).toEqual([])
        expect(yield* store.list(stranger)).toContainEqual(theirs)
      })
    )

    it.effect("a use moves the counter forward only, and records when and the backup state", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const passkey = yield* registered({ signCount: 5 })
        const later = Time.plus(soon, "1 minute")
        const used = new Passkey.Passkey({
          ...passkey,
          signCount: 6,
          backedUp: true,
          lastUsedAt: Option.some(soon),
          updatedAt: soon
        })
        expect(yield* store.recordUse(passkey.id, { signCount: 6, backedUp: true, at: soon })).toEqual(
          Option.some(used)
        )
        // The same counter again (a replay), a lower one (a clone), and 0 after counting: refused.
        for (const signCount of [6, 5, 0]) {
          expect(yield* store.recordUse(passkey.id, { signCount, backedUp: true, at: later })).toEqual(
            Option.none()
          )
        }
        expect(yield* store.list(passkey.userId)).toEqual([used])
        // Past the range of `integer`.
        expect(
          Option.map(
            yield* store.recordUse(passkey.id, { signCount: 4_294_967_295, backedUp: false, at: later }),
            (found) => found.signCount
          )
        ).toEqual(Option.some(4_294_967_295))
        expect(
          yield* store.recordUse(Passkey.PasskeyId.make(randomUUID()), {
            signCount: 1,
            backedUp: false,
            at: soon
          })
        ).toEqual(Option.none())

        // An authenticator without a counter presents 0 every time, and passes every time.
        const counterless = yield* registered()
        for (const at of [soon, later]) {
          expect(
            Option.map(
              yield* store.recordUse(counterless.id, { signCount: 0, backedUp: false, at }),
              (found) => found.lastUsedAt
            )
          ).toEqual(Option.some(Option.some(at)))
        }
      })
    )

    it.effect(`of ${concurrently} uses at once with the same new counter, one is recorded`, () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const passkey = yield* registered({ signCount: 41 })
        const outcomes = yield* atOnce(
          store.recordUse(passkey.id, { signCount: 42, backedUp: false, at: soon })
        )
        expect(outcomes.filter(Option.isSome)).toHaveLength(1)
        expect((yield* store.list(passkey.userId)).map((found) => found.signCount)).toEqual([42])
      })
    )

    it.effect("a challenge is taken once, with its purpose and user, expired or not", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const userId = yield* storedUser
        const registration = yield* challenged(Option.some(userId), Fixtures.t0)
        const signIn = yield* challenged(Option.none(), Fixtures.t0)
        const stranger = yield* storedUser
        // Another flow's or another user's challenge is not theirs to spend: it stays.
        expect(yield* store.takeChallenge(registration.id, "authentication", Option.some(userId))).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(registration.id, "registration", Option.some(stranger))).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(registration.id, "registration", Option.none())).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(signIn.id, "authentication", Option.some(userId))).toEqual(
          Option.none()
        )

        expect(yield* store.takeChallenge(registration.id, "registration", Option.some(userId))).toEqual(
          Option.some(registration)
        )
        expect(yield* store.takeChallenge(registration.id, "registration", Option.some(userId))).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(signIn.id, "authentication", Option.none())).toEqual(
          Option.some(signIn)
        )
        expect(yield* store.takeChallenge(signIn.id, "authentication", Option.none())).toEqual(Option.none())

        // An expired challenge is taken all the same: the caller tells it apart.
        const old = yield* challenged(Option.none(), Fixtures.t0)
        const pastExpiry = Time.plus(old.expiresAt, "1 millis")
        const taken = yield* store.takeChallenge(old.id, "authentication", Option.none())
        expect(taken).toEqual(Option.some(old))
        expect(Passkey.standing(taken, "authentication", Option.none(), pastExpiry)).toEqual(
          Passkey.Standing.Expired()
        )
      })
    )

    it.effect(`of ${concurrently} takers of one challenge at once, exactly one gets it`, () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        const signIn = yield* challenged(Option.none(), soon)
        const outcomes = yield* atOnce(store.takeChallenge(signIn.id, "authentication", Option.none()))
        expect(outcomes.filter(Option.isSome)).toEqual([Option.some(signIn)])

        const userId = yield* storedUser
        const registration = yield* challenged(Option.some(userId), soon)
        const registrations = yield* atOnce(
          store.takeChallenge(registration.id, "registration", Option.some(userId))
        )
        expect(registrations.filter(Option.isSome)).toHaveLength(1)
      })
    )

    it.effect("challenges expired before the given instant are reaped; one expiring then is kept", () =>
      Effect.gen(function* () {
        const store = yield* PasskeyStore
        // Long before any other test's challenges, so that the instant reaches only these.
        const long = new Date("1991-01-01T00:00:00.000Z")
        const userId = yield* storedUser
        const expired = yield* challenged(Option.some(userId), long)
        const alsoExpired = yield* challenged(Option.none(), long)
        const now = Time.plus(expired.expiresAt, "1 second")
        const expiringNow = challengeOf(Option.none(), Time.minus(now, Passkey.defaultChallengeLifetime))
        yield* store.createChallenge(expiringNow)
        const live = yield* challenged(Option.none(), now)
        // At most the limit a call.
        expect(yield* store.reapChallenges(now, 1)).toBe(1)
        expect(yield* store.reapChallenges(now, 100)).toBe(1)
        expect(yield* store.reapChallenges(now, 100)).toBe(0)
        expect(yield* store.takeChallenge(expired.id, "registration", Option.some(userId))).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(alsoExpired.id, "authentication", Option.none())).toEqual(
          Option.none()
        )
        expect(yield* store.takeChallenge(expiringNow.id, "authentication", Option.none())).toEqual(
          Option.some(expiringNow)
        )
        expect(yield* store.takeChallenge(live.id, "authentication", Option.none())).toEqual(
          Option.some(live)
        )
      })
    )
  })
