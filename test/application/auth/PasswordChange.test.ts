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
import type * as IssueSession from "../../../application/auth/IssueSession.js"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import { recover } from "../../../application/auth/Recover.js"
import { refreshSession } from "../../../application/auth/RefreshSession.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { signup } from "../../../application/auth/Signup.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { verify } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"

/** Autoconfirm on: a sign-up signs in. Refresh tokens have a 10 s reuse interval. */
const services = MemoryServices.layer()

const client = { userAgent: Option.none(), ip: Option.none() }
const first = "the first password"
const second = "the second password"

const codeOf = <A, R>(effect: Effect.Effect<A, ErrorResponse.Reason, R>) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.isLeft(result) ? ErrorResponse.describe(result.left).code : "ok"
  )

const passwordChange = (password: string, currentPassword = "") => ({
  email: "",
  phone: "",
  password: Option.some(password),
  currentPassword,
  nonce: "",
  data: Option.none(),
  appMetadata: Option.none(),
  redirectTo: "",
  codeChallenge: "",
  codeChallengeMethod: "",
  channel: ""
})

/** The code of the recovery mail queued for `email`. */
const recoveryCode = (email: string) =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
    const mail = claimed.find((queued) => queued.message.to === email && queued.message.kind === "recovery")
    return String(mail?.message.variables.Token)
  })

/** A recovery asked for and its mailed code verified: the session it begins. */
const recovered = (email: string) =>
  Effect.gen(function* () {
    yield* recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })
    const token = yield* recoveryCode(email)
    const verified = yield* verify({ type: "recovery", token, tokenHash: "", email, phone: "", client })
    if (verified._tag !== "Session") return yield* Effect.dieMessage("a recovery code signs in")
    return verified.grant
  })

/** A user signed up (their first session) and signed in `more` times (one session each). */
const withSessions = (more: number) =>
  Effect.gen(function* () {
    yield* ensureSigningKey
    const email = `${crypto.randomUUID()}@example.com`
    const outcome = yield* signup(MemoryServices.emailSignup(email, first))
    if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
    const grants: Array<IssueSession.Grant> = [outcome.grant]
    for (let i = 0; i < more; i++) {
      grants.push((yield* signInWithPassword({ email, phone: "", password: first, client })).grant)
    }
    return { email, grants }
  })

/** Whether a grant's session still lives: its access token is accepted, its refresh token rotates. */
const standing = (grant: IssueSession.Grant) =>
  Effect.gen(function* () {
    const access = yield* codeOf(Authenticate.user(Redacted.value(grant.access.token)))
    const refresh = yield* codeOf(refreshSession(Redacted.value(grant.refreshToken)))
    return `${access}/${refresh}`
  })

const adminPassword = (password: string) => ({
  id: "",
  aud: "",
  role: "",
  email: "",
  phone: "",
  password: Option.some(password),
  passwordHash: "",
  emailConfirm: false,
  phoneConfirm: false,
  userMetadata: Option.none(),
  appMetadata: Option.none(),
  banDuration: ""
})

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
      expect(yield* codeOf(refreshSession(Redacted.value(rotating.refreshToken)))).toBe(
        "refresh_token_not_found"
      )
      expect(yield* standing(rotated)).toBe("session_not_found/refresh_token_not_found")
      expect(yield* standing(changing)).toBe("ok/ok")

      expect(yield* codeOf(signInWithPassword({ email, phone: "", password: first, client }))).toBe(
        "invalid_credentials"
      )
      expect(yield* codeOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe("ok")
    }).pipe(Effect.provide(services))
  )

  it.effect("a change that is refused ends nothing", () =>
    Effect.gen(function* () {
      const { grants } = yield* withSessions(1)
      const [other, changing] = grants
      if (other === undefined || changing === undefined) return yield* Effect.dieMessage("two sessions")
      const signedIn = yield* Authenticate.user(Redacted.value(changing.access.token))
      expect(yield* codeOf(updateUser(signedIn, passwordChange(first)))).toBe("same_password")
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
      expect(yield* codeOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe("ok")
    }).pipe(Effect.provide(services))
  )

  describe("with SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD", () => {
    const requiring = MemoryServices.layer({ updatePasswordRequiresCurrentPassword: true })

    it.effect("a user with a password names it to set another, in Supabase Auth's words", () =>
      Effect.gen(function* () {
        const { email, grants } = yield* withSessions(1)
        const [other, changing] = grants
        if (other === undefined || changing === undefined) return yield* Effect.dieMessage("two sessions")
        const signedIn = yield* Authenticate.user(Redacted.value(changing.access.token))
        const refusal = (current: string) =>
          Effect.map(Effect.either(updateUser(signedIn, passwordChange(second, current))), (result) =>
            Either.isLeft(result)
              ? [ErrorResponse.describe(result.left).code, ErrorResponse.describe(result.left).message]
              : ["ok"]
          )
        expect(yield* refusal("")).toEqual([
          "current_password_required",
          "Current password required when setting new password."
        ])
        expect(yield* refusal("not the password")).toEqual([
          "current_password_invalid",
          "Current password required when setting new password."
        ])
        // A refused change ends nothing.
        expect(yield* standing(other)).toBe("ok/ok")
        expect(yield* refusal(first)).toEqual(["ok"])
        expect(yield* codeOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe("ok")
        // Named or not, the new password must still differ from the one it replaces.
        expect(yield* refusal(second)).toEqual([
          "same_password",
          "New password should be different from the old password."
        ])
      }).pipe(Effect.provide(requiring))
    )

    it.effect("a recovery's session, or a user without a password, sets one without naming any", () =>
      Effect.gen(function* () {
        const { email } = yield* withSessions(0)
        const grant = yield* recovered(email)
        const claims = (yield* Authenticate.user(Redacted.value(grant.access.token))).claims
        expect(claims.amr.map((entry) => entry.method)).toEqual(["recovery"])
        const recovering = yield* Authenticate.user(Redacted.value(grant.access.token))
        expect(yield* codeOf(updateUser(recovering, passwordChange(second)))).toBe("ok")

        const anonymous = yield* signInAnonymously({}, client)
        const guest = yield* Authenticate.user(Redacted.value(anonymous.access.token))
        const permanent = { ...passwordChange(first), email: `${crypto.randomUUID()}@example.com` }
        expect(yield* codeOf(updateUser(guest, permanent))).toBe("ok")
      }).pipe(Effect.provide(requiring))
    )
  })
})
