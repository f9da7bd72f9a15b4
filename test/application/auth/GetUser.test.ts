import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { getUser } from "../../../application/auth/GetUser.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { signedUp } from "./support/Scenarios.js"

describe("GetUser (GET /user), on memory adapters", () => {
  it.effect("answers the signed-in user with their identities", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const signedIn = yield* Authenticate.user(Redacted.value(grant.access.token))
      const answer = yield* getUser(signedIn)
      expect(answer.user.id).toBe(grant.user.id)
      expect(answer.identities.map((identity) => identity.provider)).toEqual(["email"])
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses a token whose audience is not the service's", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const signedIn = yield* Authenticate.user(Redacted.value(grant.access.token))
      const elsewhere = { ...signedIn, claims: { ...signedIn.claims, aud: "somewhere-else" } }
      expect(yield* failureOf(getUser(elsewhere))).toBe("validation_failed")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
