import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { exchangeCode } from "../../../application/auth/ExchangeCode.js"
import type * as IssueSession from "../../../application/auth/IssueSession.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { signup } from "../../../application/auth/Signup.js"
import { followLink } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { client, freshEmail, mailsTo, signedUp } from "./support/Scenarios.js"

const verifier = "a-code-verifier-long-enough-for-rfc-7636-of-43-characters-at-least"
const challenge = createHash("sha256").update(verifier).digest("base64url")

/** The authorization code the PKCE link of the last mail to `email` ends in, once followed. */
const codeMailedTo = (email: string, type: "magiclink" | "signup") =>
  Effect.gen(function* () {
    const [mail] = yield* mailsTo(email)
    const followed = yield* followLink({
      type,
      token: "",
      tokenHash: String(mail?.variables.TokenHash),
      email: "",
      phone: "",
      client
    })
    if (followed._tag !== "Code") return yield* Effect.dieMessage("a PKCE link ends in a code")
    return followed.code
  })

/** A magic link asked for with a PKCE challenge and followed: the authorization code it ends in. */
const authorizationCode = Effect.gen(function* () {
  const email = freshEmail()
  const grant = yield* signedUp(email)
  yield* mailsTo(email)
  yield* sendMagicLink({
    email,
    createUser: false,
    data: {},
    redirectTo: "",
    codeChallenge: challenge,
    codeChallengeMethod: "s256"
  })
  return { code: yield* codeMailedTo(email, "magiclink"), userId: grant.user.id }
})

/** The `amr` methods of a grant's access token. */
const methods = (grant: IssueSession.Grant) =>
  Effect.map(Authenticate.user(Redacted.value(grant.access.token)), (signedIn) =>
    signedIn.claims.amr.map((entry) => entry.method)
  )

describe("ExchangeCode (POST /token?grant_type=pkce), on memory adapters under TestClock", () => {
  it.effect("the code and its verifier give a session, once", () =>
    Effect.gen(function* () {
      const { code, userId } = yield* authorizationCode
      const exchanged = yield* exchangeCode(code, verifier, client)
      expect(exchanged.grant.user.id).toBe(userId)
      expect(yield* failureOf(exchangeCode(code, verifier, client))).toBe("flow_state_not_found")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("the session's amr names how the code was had: here a magic link", () =>
    Effect.gen(function* () {
      const { code } = yield* authorizationCode
      expect(yield* methods((yield* exchangeCode(code, verifier, client)).grant)).toEqual(["magiclink"])
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("the session's amr names how the code was had: here a confirmation mail", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = freshEmail()
      const created = yield* signup({
        ...MemoryServices.emailSignup(email, "correct horse battery staple"),
        codeChallenge: challenge,
        codeChallengeMethod: "s256"
      })
      if (created._tag !== "Created") return yield* Effect.dieMessage("a sign-up waits on its confirmation")
      const code = yield* codeMailedTo(email, "signup")
      // Supabase Auth's PKCE sign-up writes its flow's method, `email/signup`.
      expect(yield* methods((yield* exchangeCode(code, verifier, client)).grant)).toEqual(["email/signup"])
    }).pipe(Effect.provide(MemoryServices.layer({ mailerAutoconfirm: false })))
  )

  it.effect("refuses empty parameters, a wrong verifier (which ends the code) and an expired code", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(exchangeCode("", verifier, client))).toBe("validation_failed")
      const wrong = yield* authorizationCode
      expect(yield* failureOf(exchangeCode(wrong.code, `${verifier}x`, client))).toBe("bad_code_verifier")
      expect(yield* failureOf(exchangeCode(wrong.code, verifier, client))).toBe("flow_state_not_found")
      const late = yield* authorizationCode
      yield* TestClock.adjust(Duration.days(1))
      expect(yield* failureOf(exchangeCode(late.code, verifier, client))).toBe("flow_state_expired")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("a code waits as long as EXTERNAL_FLOW_STATE_EXPIRY_DURATION allows, never under 300 s", () =>
    Effect.gen(function* () {
      const waited = (lifetime: Duration.Duration, wait: Duration.Duration) =>
        Effect.gen(function* () {
          const { code } = yield* authorizationCode
          yield* TestClock.adjust(wait)
          return yield* failureOf(exchangeCode(code, verifier, client))
        }).pipe(Effect.provide(MemoryServices.layer({ flowStateLifetime: lifetime })))
      expect(yield* waited(Duration.hours(1), Duration.minutes(59))).toBe("ok")
      expect(yield* waited(Duration.hours(1), Duration.minutes(61))).toBe("flow_state_expired")
      // Shorter than 300 s is 300 s, as in Supabase Auth.
      expect(yield* waited(Duration.seconds(30), Duration.minutes(4))).toBe("ok")
      expect(yield* waited(Duration.seconds(30), Duration.seconds(301))).toBe("flow_state_expired")
    })
  )
})
