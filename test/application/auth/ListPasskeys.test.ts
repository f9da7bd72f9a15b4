import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { listPasskeys } from "../../../application/auth/ListPasskeys.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import { signedInUser, world } from "./support/Factors.js"
import { failureOf } from "./support/Failure.js"
import { authenticator, registered } from "./support/Passkeys.js"

describe("ListPasskeys (GET /passkeys), on memory adapters", () => {
  it.effect("lists the user's passkeys oldest first, nobody else's", () =>
    Effect.gen(function* () {
      const signedIn = yield* signedInUser()
      const other = yield* signedInUser()
      expect(yield* listPasskeys(signedIn)).toEqual([])
      const first = yield* registered(signedIn, authenticator())
      yield* TestClock.adjust(Duration.minutes(1))
      const second = yield* registered(signedIn, authenticator())
      yield* registered(other, authenticator())
      expect((yield* listPasskeys(signedIn)).map((passkey) => passkey.id)).toEqual([first.id, second.id])
    }).pipe(Effect.provide(world()))
  )

  it.effect("answers passkey_disabled while PASSKEY_ENABLED is off", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(listPasskeys(yield* signedInUser()))).toBe("passkey_disabled")
    }).pipe(
      Effect.provide(
        world({
          passkeys: { enabled: false, maxPerUser: 10, challengeLifetime: Passkey.defaultChallengeLifetime }
        })
      )
    )
  )
})
