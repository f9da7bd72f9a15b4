import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { signedUp } from "./support/Scenarios.js"

const services = MemoryServices.layer()

describe("Authenticate, on memory adapters under TestClock", () => {
  it.effect("an access token verifies until JWT_EXP, and is refused from then on", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const token = Redacted.value(grant.access.token)
      expect((yield* Authenticate.user(token)).user.id).toBe(grant.user.id)
      yield* TestClock.adjust(Duration.subtract(Duration.hours(1), Duration.seconds(1)))
      expect((yield* Authenticate.user(token)).user.id).toBe(grant.user.id)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* failureOf(Authenticate.user(token))).toBe("bad_jwt")
    }).pipe(Effect.provide(services))
  )

  it.effect("a token that is no JWT is bad_jwt; a user's token is no administrator's", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      expect(yield* failureOf(Authenticate.user("not.a.jwt"))).toBe("bad_jwt")
      expect(yield* failureOf(Authenticate.admin(Redacted.value(grant.access.token)))).toBe("not_admin")
    }).pipe(Effect.provide(services))
  )
})
