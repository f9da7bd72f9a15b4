import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import { reauthenticate } from "../../../application/auth/Reauthenticate.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signup } from "../../../application/auth/Signup.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"

/** Autoconfirm on (sign-up signs in), and a password change needs a nonce past a day. */
const services = MemoryServices.layer({ updatePasswordRequiresReauthentication: true })

/** The reauthentication mails queued since the last call: their subjects and codes. */
const queued = Effect.gen(function* () {
  const outbox = yield* MailOutbox
  const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
  for (const mail of claimed) yield* outbox.delivered(mail.id, new Date(0))
  return claimed
    .filter((mail) => mail.message.kind === "reauthentication")
    .map((mail) => String(mail.message.variables.Token))
})

const passwordChange = (password: string, nonce: string) => ({
  email: "",
  phone: "",
  password: Option.some(password),
  currentPassword: "",
  nonce,
  data: Option.none(),
  appMetadata: Option.none(),
  redirectTo: "",
  codeChallenge: "",
  codeChallengeMethod: "",
  channel: ""
})

describe("reauthentication, on memory adapters under TestClock", () => {
  it.effect("a day after sign-in the password changes only with the mailed nonce, once", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const outcome = yield* signup(
        MemoryServices.emailSignup(`${crypto.randomUUID()}@example.com`, "the first password")
      )
      if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
      yield* TestClock.adjust(Duration.hours(25))
      // The access token has expired by now; a refresh gives one of the same, day-old session.
      const refreshed = yield* refreshSession(Redacted.value(outcome.grant.refreshToken))
      const signedIn = yield* Authenticate.user(Redacted.value(refreshed.access.token))

      expect(yield* failureOf(updateUser(signedIn, passwordChange("a second password", "")))).toBe(
        "reauthentication_needed"
      )
      expect(yield* failureOf(updateUser(signedIn, passwordChange("a second password", "123456")))).toBe(
        "reauthentication_not_valid"
      )
      yield* reauthenticate(signedIn)
      const [nonce] = yield* queued
      expect(nonce).toMatch(/^\d{6}$/)
      expect(yield* failureOf(reauthenticate(signedIn))).toBe("over_email_send_rate_limit")
      expect(yield* failureOf(updateUser(signedIn, passwordChange("a second password", nonce ?? "")))).toBe(
        "ok"
      )
      expect(yield* failureOf(updateUser(signedIn, passwordChange("a third password", nonce ?? "")))).toBe(
        "reauthentication_not_valid"
      )
    }).pipe(Effect.provide(services))
  )

  it.effect(
    "a password change is mailed to the owner when MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED",
    () =>
      Effect.gen(function* () {
        for (const enabled of [true, false]) {
          const notices = yield* Effect.gen(function* () {
            yield* ensureSigningKey
            const email = `${crypto.randomUUID()}@example.com`
            const outcome = yield* signup(MemoryServices.emailSignup(email, "the first password"))
            if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
            const signedIn = yield* Authenticate.user(Redacted.value(outcome.grant.access.token))
            yield* updateUser(signedIn, passwordChange("a second password", ""))
            const outbox = yield* MailOutbox
            const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
            return claimed
              .filter((mail) => mail.message.kind === "password_changed_notification")
              .map((mail) => [mail.message.to, mail.message.variables.Email, mail.message.variables.Data])
          }).pipe(
            Effect.provide(
              MemoryServices.layer({
                notifications: new Set(enabled ? ["password_changed_notification"] : [])
              })
            )
          )
          expect(notices.length).toBe(enabled ? 1 : 0)
          if (enabled) expect(notices[0]?.[0]).toBe(notices[0]?.[1])
          // The user's metadata, as every notification's `Data` (Supabase Auth's templates read it).
          if (enabled) expect(notices[0]?.[2]).toMatchObject({ email: notices[0]?.[0] })
        }
      })
  )
})
