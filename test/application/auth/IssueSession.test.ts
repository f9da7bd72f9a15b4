import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import * as IssueSession from "../../../application/auth/IssueSession.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import * as Fixtures from "../../support/auth/Fixtures.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { client } from "./support/Scenarios.js"

describe("IssueSession, on memory adapters", () => {
  it.effect(
    "begins a session: an access token naming it and the method, a refresh token, the sign-in time",
    () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const user = Fixtures.user()
        yield* (yield* UserRepository).insert(user, [], Option.none())
        const grant = yield* IssueSession.issue(user, "password", client)
        expect(Option.isSome(grant.user.lastSignInAt)).toBe(true)
        const signedIn = yield* Authenticate.user(Redacted.value(grant.access.token))
        expect(signedIn.user.id).toBe(user.id)
        expect(Option.isSome(signedIn.session)).toBe(true)
        expect(signedIn.claims.amr.map((entry) => entry.method)).toEqual(["password"])
      }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
