import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import * as ClientInput from "../../../application/auth/ClientInput.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { authorize } from "../../../application/auth/ExternalAuthorize.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { ExternalLoginStore } from "../../../application/auth/ports/ExternalLoginStore.js"
import {
  type ExternalProvider,
  ExternalProviders
} from "../../../application/auth/ports/ExternalProviders.js"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import { recover } from "../../../application/auth/Recover.js"
import { resend } from "../../../application/auth/Resend.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signup } from "../../../application/auth/Signup.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { Secrets } from "../../../application/ports/Secrets.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { describedFailureOf } from "./support/Failure.js"

/**
 * A request's PKCE parameters at every use case that takes them: each kind of bad value is
 * Supabase Auth's 400 `validation_failed` in its words, before anything is written or sent —
 * never a defect, whichever endpoint the parameters come through.
 */

const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

const requiresBoth = "PKCE flow requires code_challenge_method and code_challenge"
const length = "code challenge has to be between 43 and 128 characters"
const characters =
  "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"
const unsupported = "code challenge method not supported"

/** Each class of bad parameters, as `[code_challenge, code_challenge_method, message]`. */
const bad: ReadonlyArray<readonly [string, string, string]> = [
  ["", "s256", requiresBoth],
  [challenge, "", requiresBoth],
  [challenge, "S512", unsupported],
  [challenge, " s256", unsupported],
  [challenge.slice(0, 42), "s256", length],
  ["a".repeat(129), "s256", length],
  [`${challenge.slice(0, 42)}+`, "s256", characters],
  [`${challenge.slice(0, 42)}=`, "plain", characters]
]

/** The mails queued since the last call. */
const queued = Effect.gen(function* () {
  const outbox = yield* MailOutbox
  const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
  for (const mail of claimed) yield* outbox.delivered(mail.id, new Date(0))
  return claimed
})

const provider: ExternalProvider = {
  upstream: Either.right({
    name: "github",
    authorizationUrl: (request) =>
      Effect.succeed(new URL(`https://github.example/authorize?state=${request.state}`)),
    exchange: () => Effect.dieMessage("no callback in these tests")
  }),
  redirectUri: "https://auth.example.com/callback",
  emailOptional: false,
  passThrough: {},
  audiences: [],
  shapeClaims: (claims) => claims,
  skipNonceCheck: false,
  idTokenIssuer: Option.none(),
  takeHandshake: (url) => ({ url, handshake: Option.none() })
}

const services = Layer.merge(
  MemoryServices.layer({ mailerAutoconfirm: false, anonymousEnabled: true }),
  Layer.succeed(ExternalProviders, {
    find: (name: string) => Effect.succeed(name === "github" ? Option.some(provider) : Option.none())
  })
)

/** A user who signed up and has not confirmed (their confirmation mail taken out of the outbox). */
const unconfirmed = Effect.gen(function* () {
  const email = `${crypto.randomUUID()}@example.com`
  yield* signup(MemoryServices.emailSignup(email, "correct horse battery staple"))
  yield* queued
  return email
})

describe("ClientInput.pkceChallenge", () => {
  it.effect("reads S256 and plain in any case, and no challenge as the implicit flow", () =>
    Effect.gen(function* () {
      expect(yield* ClientInput.pkceChallenge(challenge, "S256")).toEqual(
        Option.some({ codeChallenge: challenge, method: "s256" })
      )
      expect(yield* ClientInput.pkceChallenge(challenge, "Plain")).toEqual(
        Option.some({ codeChallenge: challenge, method: "plain" })
      )
      expect(yield* ClientInput.pkceChallenge("", "")).toEqual(Option.none())
    })
  )

  it.effect("refuses each class of bad parameters in Supabase Auth's words", () =>
    Effect.gen(function* () {
      for (const [given, method, message] of bad) {
        expect(
          yield* describedFailureOf(ClientInput.pkceChallenge(given, method)),
          `${given} ${method}`
        ).toBe(`validation_failed: ${message}`)
      }
    })
  )
})

describe("every use case that takes PKCE parameters refuses bad ones before it writes or sends", () => {
  it.effect("sign-up, magic link and /otp by mail, recovery, resend", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = yield* unconfirmed
      for (const [codeChallenge, codeChallengeMethod, message] of bad) {
        const expected = `validation_failed: ${message}`
        const fresh = `${crypto.randomUUID()}@example.com`
        expect(
          yield* describedFailureOf(
            signup({
              ...MemoryServices.emailSignup(fresh, "correct horse"),
              codeChallenge,
              codeChallengeMethod
            })
          )
        ).toBe(expected)
        expect(
          yield* describedFailureOf(
            sendMagicLink({
              email,
              createUser: true,
              data: {},
              redirectTo: "",
              codeChallenge,
              codeChallengeMethod
            })
          )
        ).toBe(expected)
        // The address has an owner: the recovery would have mailed a link ending in a flow.
        expect(
          yield* describedFailureOf(recover({ email, redirectTo: "", codeChallenge, codeChallengeMethod }))
        ).toBe(expected)
        expect(
          yield* describedFailureOf(
            resend({ type: "signup", email, phone: "", redirectTo: "", codeChallenge, codeChallengeMethod })
          )
        ).toBe(expected)
      }
      expect(yield* queued).toEqual([])
      // The same requests with a good challenge are taken, and their links end in a flow.
      expect(
        yield* describedFailureOf(
          recover({ email, redirectTo: "", codeChallenge: challenge, codeChallengeMethod: "S256" })
        )
      ).toBe("ok")
      const [mail] = yield* queued
      expect(mail?.message.kind).toBe("recovery")
    }).pipe(Effect.provide(services))
  )

  it.effect("an email change (PUT /user) and a sign-in at a provider (/authorize)", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const anonymous = yield* signInAnonymously({}, { userAgent: Option.none(), ip: Option.none() })
      const signedIn = yield* Authenticate.user(Redacted.value(anonymous.access.token))
      for (const [codeChallenge, codeChallengeMethod, message] of bad) {
        const expected = `validation_failed: ${message}`
        expect(
          yield* describedFailureOf(
            updateUser(signedIn, {
              email: `${crypto.randomUUID()}@example.com`,
              phone: "",
              password: Option.none(),
              currentPassword: "",
              nonce: "",
              data: Option.none(),
              appMetadata: Option.none(),
              redirectTo: "",
              codeChallenge,
              codeChallengeMethod,
              channel: ""
            })
          )
        ).toBe(expected)
        expect(
          yield* describedFailureOf(
            authorize({
              provider: "github",
              scopes: "",
              redirectTo: "",
              codeChallenge,
              codeChallengeMethod,
              query: new Map()
            })
          )
        ).toBe(expected)
      }
      expect(yield* queued).toEqual([])
      const started = yield* authorize({
        provider: "github",
        scopes: "",
        redirectTo: "",
        codeChallenge: challenge,
        codeChallengeMethod: "S256",
        query: new Map()
      })
      // The sign-in waits for the callback with the challenge, its method read as Supabase Auth stores it.
      const state = Redacted.make(started.searchParams.get("state") ?? "")
      const stateHash = yield* Effect.flatMap(Secrets, (secrets) => secrets.hash(state))
      const parked = yield* Effect.flatMap(ExternalLoginStore, (logins) =>
        logins.take(stateHash, new Date(0))
      )
      expect(Option.map(parked, (login) => [login.codeChallenge, login.codeChallengeMethod])).toEqual(
        Option.some([Option.some(challenge), Option.some("s256")])
      )
    }).pipe(Effect.provide(services))
  )
})
