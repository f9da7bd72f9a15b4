import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as UpdateAdminUser from "../../../application/auth/admin/UpdateUser.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { client, freshEmail, password, signedUp } from "./support/Scenarios.js"

const services = MemoryServices.layer()

describe("SignInWithPassword, on memory adapters under TestClock", () => {
  it.effect("the right password begins a session; a wrong one or an unknown address is refused alike", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      const first = yield* signedUp(email)
      const signedIn = yield* signInWithPassword({ email, phone: "", password, client })
      expect(signedIn.grant.user.id).toBe(first.user.id)
      expect(yield* failureOf(signInWithPassword({ email, phone: "", password: "wrong", client }))).toBe(
        "invalid_credentials"
      )
      expect(yield* failureOf(signInWithPassword({ email: freshEmail(), phone: "", password, client }))).toBe(
        "invalid_credentials"
      )
    }).pipe(Effect.provide(services))
  )

  it.effect("with email sign-in off an address is refused before its password is looked at", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(signInWithPassword({ email: freshEmail(), phone: "", password, client }))).toBe(
        "email_provider_disabled"
      )
    }).pipe(Effect.provide(MemoryServices.layer({ emailEnabled: false })))
  )

  it.effect("a ban stops sign-in and refresh until it ends", () =>
    Effect.gen(function* () {
      const grant = yield* signedUp()
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
      expect(yield* failureOf(signIn)).toBe("user_banned")
      expect(yield* failureOf(refreshSession(Redacted.value(grant.refreshToken)))).toBe("user_banned")
      yield* TestClock.adjust(Duration.subtract(Duration.hours(1), Duration.millis(1)))
      expect(yield* failureOf(signIn)).toBe("user_banned")
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* failureOf(signIn)).toBe("ok")
    }).pipe(Effect.provide(services))
  )
})
