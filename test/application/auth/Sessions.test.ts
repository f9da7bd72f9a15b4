import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import * as UpdateAdminUser from "../../../application/auth/admin/UpdateUser.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { signup } from "../../../application/auth/Signup.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"

const { reuseInterval } = MemoryServices
const services = MemoryServices.layer()

const client = { userAgent: Option.none(), ip: Option.none() }
const password = "correct horse battery staple"

/** A signed-up (autoconfirmed) user's first session. */
const signedUp = Effect.gen(function* () {
  yield* ensureSigningKey
  const outcome = yield* signup(MemoryServices.emailSignup(`${crypto.randomUUID()}@example.com`, password))
  if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
  return outcome.grant
})

const codeOf = <A, R>(effect: Effect.Effect<A, ErrorResponse.Reason, R>) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.isLeft(result) ? ErrorResponse.describe(result.left).code : "ok"
  )

describe("auth sessions on memory adapters", () => {
  it.effect(
    "the previous refresh token yields the same child until the reuse interval ends, then revokes the session",
    () =>
      Effect.gen(function* () {
        const first = yield* signedUp
        const token = Redacted.value(first.refreshToken)
        const child = yield* refreshSession(token)
        yield* TestClock.adjust(Duration.subtract(reuseInterval, Duration.millis(1)))
        const again = yield* refreshSession(token)
        expect(Redacted.value(again.refreshToken)).toBe(Redacted.value(child.refreshToken))
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* codeOf(refreshSession(token))).toBe("refresh_token_already_used")
        // The reuse revoked the session: its live token is refused too.
        expect(yield* codeOf(refreshSession(Redacted.value(child.refreshToken)))).toBe(
          "refresh_token_not_found"
        )
      }).pipe(Effect.provide(services))
  )

  it.effect("an access token verifies until JWT_EXP, and is refused from then on", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp
      const token = Redacted.value(grant.access.token)
      expect((yield* Authenticate.user(token)).user.id).toBe(grant.user.id)
      yield* TestClock.adjust(Duration.subtract(Duration.hours(1), Duration.seconds(1)))
      expect((yield* Authenticate.user(token)).user.id).toBe(grant.user.id)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* codeOf(Authenticate.user(token))).toBe("bad_jwt")
    }).pipe(Effect.provide(services))
  )

  it.effect("a ban stops sign-in and refresh until it ends", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp
      const email = Option.getOrThrow(grant.user.email)
      yield* UpdateAdminUser.updateUser(grant.user.id, {
        id: "",
        aud: "",
        role: "",
        email: "",
        phone: "",
        password: Option.none(),
        passwordHash: "",
        emailConfirm: false,
        phoneConfirm: false,
        userMetadata: Option.none(),
        appMetadata: Option.none(),
        banDuration: "1h"
      })
      const signIn = signInWithPassword({ email, phone: "", password, client })
      expect(yield* codeOf(signIn)).toBe("user_banned")
      expect(yield* codeOf(refreshSession(Redacted.value(grant.refreshToken)))).toBe("user_banned")
      yield* TestClock.adjust(Duration.subtract(Duration.hours(1), Duration.millis(1)))
      expect(yield* codeOf(signIn)).toBe("user_banned")
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* codeOf(signIn)).toBe("ok")
    }).pipe(Effect.provide(services))
  )
})
