import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { verify } from "../../../application/auth/Verify.js"
import * as PasswordPolicy from "../../../domain/PasswordPolicy.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import * as Scenarios from "./support/Scenarios.js"

const { client, passwordChange, recovered, standing } = Scenarios
const first = "the first password"
const second = "the second password"

const withSessions = (more: number) => Scenarios.withSessions(more, first)

/** A PUT /user body that changes nothing; spread it and set what a test changes. */
const noChange = { ...passwordChange(""), password: Option.none<string>() }

describe("UpdateUser (PUT /user), on memory adapters under TestClock", () => {
  it.effect("stores the user's metadata; a weak password or an address that is none is refused", () =>
    Effect.gen(function* () {
      const grant = yield* Scenarios.signedUp()
      const signedIn = yield* Authenticate.user(Redacted.value(grant.access.token))
      const updated = yield* updateUser(signedIn, { ...noChange, data: Option.some({ nickname: "ada" }) })
      expect(updated.user.userMetadata).toMatchObject({ nickname: "ada" })
      expect(yield* failureOf(updateUser(signedIn, passwordChange("short")))).toBe("weak_password")
      expect(yield* failureOf(updateUser(signedIn, { ...noChange, email: "not an address" }))).toBe(
        "validation_failed"
      )
    }).pipe(Effect.provide(MemoryServices.layer({ passwordPolicy: PasswordPolicy.make({ minLength: 12 }) })))
  )

  it.effect(
    "an anonymous user taking an address under autoconfirm: confirmed, and so marked after the data",
    () =>
      Effect.gen(function* () {
        yield* Scenarios.signedUp()
        const anonymous = yield* signInAnonymously({ theme: "dark" }, client)
        const guest = yield* Authenticate.user(Redacted.value(anonymous.access.token))
        const email = Scenarios.freshEmail()
        const permanent = yield* updateUser(guest, {
          ...noChange,
          email,
          data: Option.some({ nickname: "ada", email_verified: false })
        })
        expect(permanent.user.isAnonymous).toBe(false)
        expect(Option.isSome(permanent.user.emailConfirmedAt)).toBe(true)
        expect(permanent.user.userMetadata).toEqual({ theme: "dark", nickname: "ada", email_verified: true })
      }).pipe(Effect.provide(MemoryServices.layer()))
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
          describedFailureOf(updateUser(signedIn, passwordChange(second, current)))
        expect(yield* refusal("")).toBe(
          "current_password_required: Current password required when setting new password."
        )
        expect(yield* refusal("not the password")).toBe(
          "current_password_invalid: Current password required when setting new password."
        )
        // A refused change ends nothing.
        expect(yield* standing(other)).toBe("ok/ok")
        expect(yield* refusal(first)).toBe("ok")
        expect(yield* failureOf(signInWithPassword({ email, phone: "", password: second, client }))).toBe(
          "ok"
        )
        // Named or not, the new password must still differ from the one it replaces.
        expect(yield* refusal(second)).toBe(
          "same_password: New password should be different from the old password."
        )
      }).pipe(Effect.provide(requiring))
    )

    it.effect("a recovery's session, or a user without a password, sets one without naming any", () =>
      Effect.gen(function* () {
        const { email } = yield* withSessions(0)
        const grant = yield* recovered(email)
        const claims = (yield* Authenticate.user(Redacted.value(grant.access.token))).claims
        expect(claims.amr.map((entry) => entry.method)).toEqual(["recovery"])
        const recovering = yield* Authenticate.user(Redacted.value(grant.access.token))
        expect(yield* failureOf(updateUser(recovering, passwordChange(second)))).toBe("ok")

        const anonymous = yield* signInAnonymously({}, client)
        const guest = yield* Authenticate.user(Redacted.value(anonymous.access.token))
        const permanent = { ...passwordChange(first), email: `${crypto.randomUUID()}@example.com` }
        expect(yield* failureOf(updateUser(guest, permanent))).toBe("ok")
      }).pipe(Effect.provide(requiring))
    )

    it.effect("a session a mailed code or link began sets one without naming any, as a recovery's", () =>
      Effect.gen(function* () {
        const { email } = yield* withSessions(0)
        yield* Scenarios.mailsTo(email)
        yield* sendMagicLink({
          email,
          createUser: false,
          data: {},
          redirectTo: "",
          codeChallenge: "",
          codeChallengeMethod: ""
        })
        const [mail] = yield* Scenarios.mailsTo(email)
        if (mail?.kind !== "magic_link") return yield* Effect.dieMessage("a magic link is mailed")
        const verified = yield* verify({
          type: "email",
          token: String(mail.variables.Token),
          tokenHash: "",
          email,
          phone: "",
          client
        })
        if (verified._tag !== "Session") return yield* Effect.dieMessage("a mailed code signs in")
        const signedIn = yield* Authenticate.user(Redacted.value(verified.grant.access.token))
        expect(signedIn.claims.amr.map((entry) => entry.method)).toEqual(["otp"])
        expect(yield* failureOf(updateUser(signedIn, passwordChange(second)))).toBe("ok")
      }).pipe(Effect.provide(requiring))
    )
  })
})
