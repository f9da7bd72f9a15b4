import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import * as UpdateAdminUser from "../../../application/auth/admin/UpdateUser.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { reauthenticate } from "../../../application/auth/Reauthenticate.js"
import { recover } from "../../../application/auth/Recover.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { verify } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import * as Scenarios from "./support/Scenarios.js"

/** Autoconfirm on: a sign-up signs in. Refresh tokens have a 10 s reuse interval. */
const services = MemoryServices.layer()

const { client, passwordChange, recovered, recoveryCode, standing } = Scenarios
const first = "the first password"
const second = "the second password"

const withSessions = (more: number) => Scenarios.withSessions(more, first)

/** A user signed in once, as the request their access token makes reads them. */
const signedInOnce = Effect.gen(function* () {
  const { email, grants } = yield* withSessions(0)
  const [grant] = grants
  if (grant === undefined) return yield* Effect.dieMessage("a session")
  return { email, signedIn: yield* Authenticate.user(Redacted.value(grant.access.token)) }
})

const adminPassword = (password: string) => ({ ...Scenarios.adminNoChange, password: Option.some(password) })

describe("a password change ends sessions, on memory adapters under TestClock", () => {
  it.effect("PUT /user ends every other session of the user, the reuse interval's parent included", () =>
    Effect.gen(function* () {
      const { email, grants } = yield* withSessions(2)
      const [signedUp, changing, rotating] = grants
      if (signedUp === undefined || changing === undefined || rotating === undefined) {
        return yield* Effect.dieMessage("three sessions")
      }
      // The third session rotated just now: inside the interval its previous token would be
      // handed the same child again.
      const rotated = yield* refreshSession(Redacted.value(rotating.refreshToken))
      const signedIn = yield* Authenticate.user(Redacted.value(changing.access.token))
      yield* updateUser(signedIn, passwordChange(second))
      yield* TestClock.adjust(Duration.seconds(1))

      expect(yield* standing(signedUp)).toBe("session_not_found/refresh_token_not_found")
      expect(yield* failureOf(refreshSession(Redacted.value(rotating.refreshToken)))).toBe(
        "refresh_token_not_found"
      )
      expect(yield* standing(rotated)).toBe("session_not_found/refresh_token_not_found")
      expect(yield* standing(changing)).toBe("ok/ok")

      expect(yield* failureOf(signInWithPassword({ email, phone: "", password: first, client }))).toBe(
        "invalid_credentials"
      )
      expect(yield* failureOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe("ok")
    }).pipe(Effect.provide(services))
  )

  it.effect("a change that is refused ends nothing", () =>
    Effect.gen(function* () {
      const { grants } = yield* withSessions(1)
      const [other, changing] = grants
      if (other === undefined || changing === undefined) return yield* Effect.dieMessage("two sessions")
      const signedIn = yield* Authenticate.user(Redacted.value(changing.access.token))
      expect(yield* failureOf(updateUser(signedIn, passwordChange(first)))).toBe("same_password")
      expect(yield* standing(other)).toBe("ok/ok")
    }).pipe(Effect.provide(services))
  )

  it.effect("a recovery keeps the session its code began and ends the others", () =>
    Effect.gen(function* () {
      const { email, grants } = yield* withSessions(1)
      const grant = yield* recovered(email)
      const recovering = yield* Authenticate.user(Redacted.value(grant.access.token))
      yield* updateUser(recovering, passwordChange(second))

      for (const grant of grants) {
        expect(yield* standing(grant)).toBe("session_not_found/refresh_token_not_found")
      }
      expect(yield* standing(grant)).toBe("ok/ok")
    }).pipe(Effect.provide(services))
  )

  it.effect("a code mailed before the change no longer verifies after it", () =>
    Effect.gen(function* () {
      const { email, grants } = yield* withSessions(0)
      const [changing] = grants
      if (changing === undefined) return yield* Effect.dieMessage("a session")
      yield* recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })
      const token = yield* recoveryCode(email)
      const signedIn = yield* Authenticate.user(Redacted.value(changing.access.token))
      yield* updateUser(signedIn, passwordChange(second))
      expect(
        yield* failureOf(verify({ type: "recovery", token, tokenHash: "", email, phone: "", client }))
      ).toBe("otp_expired")
    }).pipe(Effect.provide(services))
  )

  it.effect("a change forgets when the pending mails went out; a pending address stays", () =>
    Effect.gen(function* () {
      const { signedIn } = yield* signedInOnce
      const next = Scenarios.freshEmail()
      const requested = yield* updateUser(signedIn, {
        ...passwordChange(""),
        password: Option.none(),
        email: next
      })
      expect(Option.isSome(requested.user.emailChangeSentAt)).toBe(true)
      const changed = yield* updateUser(signedIn, passwordChange(second))
      expect(changed.user.emailChangeSentAt).toEqual(Option.none())
      expect(changed.user.confirmationSentAt).toEqual(Option.none())
      expect(changed.user.emailChange).toEqual(Option.some(next))
    }).pipe(Effect.provide(services))
  )

  it.effect("a recovery and a nonce record when they went out; a change forgets both", () =>
    Effect.gen(function* () {
      const { email, signedIn } = yield* signedInOnce
      const stored = Effect.map(
        Effect.flatMap(UserRepository, (users) => users.findById(signedIn.user.id)),
        Option.getOrThrow
      )
      yield* TestClock.adjust(Duration.minutes(1))
      yield* recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })
      const recoveredAt = new Date(60_000)
      yield* TestClock.adjust(Duration.minutes(1))
      yield* reauthenticate(signedIn)
      const asked = yield* stored
      // As Supabase Auth's user object reports them, `recovery_sent_at` and `reauthentication_sent_at`.
      expect(asked.recoverySentAt).toEqual(Option.some(recoveredAt))
      expect(asked.reauthenticationSentAt).toEqual(Option.some(new Date(120_000)))
      const changed = yield* updateUser(signedIn, passwordChange(second))
      expect([changed.user.recoverySentAt, changed.user.reauthenticationSentAt]).toEqual([
        Option.none(),
        Option.none()
      ])
      const after = yield* stored
      expect([after.recoverySentAt, after.reauthenticationSentAt]).toEqual([Option.none(), Option.none()])
    }).pipe(Effect.provide(services))
  )

  it.effect("an administrator's change ends every session of the user, and only theirs", () =>
    Effect.gen(function* () {
      const { email, grants } = yield* withSessions(1)
      const bystander = yield* withSessions(0)
      const user = grants[0]?.user
      if (user === undefined) return yield* Effect.dieMessage("a user")
      yield* UpdateAdminUser.updateUser(user.id, adminPassword(second))
      for (const grant of grants) {
        expect(yield* standing(grant)).toBe("session_not_found/refresh_token_not_found")
      }
      for (const grant of bystander.grants) expect(yield* standing(grant)).toBe("ok/ok")
      expect(yield* failureOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe("ok")
    }).pipe(Effect.provide(services))
  )
})
