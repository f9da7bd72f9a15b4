import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ExternalLoginStore } from "../../../../application/auth/ports/ExternalLoginStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { ExternalLogin, expiryFor } from "../../../../domain/auth/ExternalLogin.js"
import { SecretHash } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"

const digest = (value: string) => SecretHash.make(createHash("sha256").update(value).digest("hex"))

const login = (fields: Partial<ConstructorParameters<typeof ExternalLogin>[0]> = {}) =>
  new ExternalLogin({
    stateHash: digest(randomUUID()),
    provider: "github",
    redirectTo: "http://localhost:3000/welcome",
    codeChallenge: Option.none(),
    codeChallengeMethod: Option.none(),
    linkingUserId: Option.none(),
    handshake: Option.none(),
    createdAt: Fixtures.t0,
    expiresAt: expiryFor(Fixtures.t0, Duration.zero),
    ...fields
  })

export const externalLoginStoreContract = (it: It) =>
  describe("ExternalLoginStore", () => {
    it.effect("a sign-in is found by its state's digest once, with everything it was put with", () =>
      Effect.gen(function* () {
        const logins = yield* ExternalLoginStore
        const user = Fixtures.user()
        yield* Effect.flatMap(UserRepository, (users) => users.insert(user, [], Option.none()))
        const parked = login({
          codeChallenge: Option.some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
          codeChallengeMethod: Option.some("s256"),
          linkingUserId: Option.some(user.id),
          handshake: Option.some("sealed-request-token-secret")
        })
        yield* logins.put(parked)
        expect(yield* logins.take(digest("another state"), Fixtures.t0)).toEqual(Option.none())
        expect(yield* logins.take(parked.stateHash, Fixtures.t0)).toEqual(Option.some(parked))
        expect(yield* logins.take(parked.stateHash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect("an expired sign-in is gone, and taking it removes it", () =>
      Effect.gen(function* () {
        const logins = yield* ExternalLoginStore
        const parked = login()
        yield* logins.put(parked)
        expect(yield* logins.take(parked.stateHash, parked.expiresAt)).toEqual(Option.none())
        expect(yield* logins.take(parked.stateHash, Fixtures.t0)).toEqual(Option.none())
      })
    )

    it.effect(`of ${concurrently} concurrent takes of one state exactly one gets it`, () =>
      Effect.gen(function* () {
        const logins = yield* ExternalLoginStore
        const parked = login()
        yield* logins.put(parked)
        const taken = yield* Effect.all(
          Array.from({ length: concurrently }, () =>
            logins.take(parked.stateHash, Time.plus(Fixtures.t0, 1000))
          ),
          { concurrency: "unbounded" }
        )
        expect(taken.filter(Option.isSome)).toHaveLength(1)
      })
    )
  })
