import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { logout } from "../../../application/auth/Logout.js"
import * as Session from "../../../domain/auth/Session.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
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

  it.effect(
    "an administrator's session past a limit is refused with session_expired, as Supabase Auth does",
    () =>
      Effect.gen(function* () {
        const grant = yield* signedUp()
        const token = Redacted.value(grant.access.token)
        expect(yield* failureOf(Authenticate.admin(token))).toBe("ok")
        yield* TestClock.adjust(Duration.minutes(11))
        expect(yield* describedFailureOf(Authenticate.admin(token))).toBe(
          "session_expired: Session is no longer valid"
        )
        // The user's own requests go on until the token expires: only its refresh is refused.
        expect(yield* failureOf(Authenticate.user(token))).toBe("ok")
      }).pipe(
        Effect.provide(
          MemoryServices.layer({
            adminRoles: ["service_role", "authenticated"],
            sessionLimits: { ...Session.unlimited, timebox: Option.some(Duration.minutes(10)) }
          })
        )
      )
  )

  it.effect("an admin token's user and session are checked before its role, as Supabase Auth does", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
      const token = Redacted.value(grant.access.token)
      expect(yield* failureOf(Authenticate.admin(token))).toBe("not_admin")
      yield* logout(yield* Authenticate.user(token), "local")
      expect(yield* failureOf(Authenticate.admin(token))).toBe("session_not_found")
    }).pipe(Effect.provide(services))
  )
})
