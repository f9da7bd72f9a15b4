import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { authorize } from "../../../application/auth/ExternalAuthorize.js"
import { callback } from "../../../application/auth/ExternalCallback.js"
import {
  type ExternalProvider,
  ExternalProviders
} from "../../../application/auth/ports/ExternalProviders.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { signInWithPassword } from "../../../application/auth/SignInWithPassword.js"
import { signup } from "../../../application/auth/Signup.js"
import type { UpstreamRequest } from "../../../application/ports/UpstreamIdentityProvider.js"
import type { UpstreamProfile } from "../../../domain/UpstreamProfile.js"
import { Email } from "../../../domain/User.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { codeOf } from "./support/Failure.js"

/**
 * Automatic linking against accounts nobody confirmed, on memory adapters, with providers whose
 * answers the test scripts: an account made by a sign-in (or a sign-up) that never proved the
 * address must not stay reachable by its first way in once the address's owner shows up.
 */

const client = { userAgent: Option.none(), ip: Option.none() }

/** What each scripted provider answers at its next callback. */
const answers = new Map<string, UpstreamProfile>()

const scripted = (name: string): ExternalProvider => ({
  upstream: Either.right({
    name,
    authorizationUrl: (request: UpstreamRequest) =>
      Effect.succeed(new URL(`https://${name.replace(":", "-")}.example/authorize?state=${request.state}`)),
    exchange: () =>
      Effect.suspend(() => {
        const answer = answers.get(name)
        return answer === undefined ? Effect.dieMessage(`no answer for ${name}`) : Effect.succeed(answer)
      })
  }),
  redirectUri: "https://auth.example.com/callback",
  emailOptional: name === "optional",
  passThrough: {},
  audiences: [],
  shapeClaims: (claims) => claims,
  skipNonceCheck: false,
  idTokenIssuer: Option.none(),
  takeHandshake: (url) => ({ url, handshake: Option.none() })
})

const providers = Layer.succeed(ExternalProviders, {
  find: (name: string) =>
    Effect.succeed(
      ["loose", "strict", "optional"].includes(name)
        ? Option.some(scripted(name))
        : // A custom OpenID provider: its upstream names itself by its kind, not by its key.
          name === "custom:acme"
          ? Option.some({
              ...scripted(name),
              upstream: Either.map(scripted(name).upstream, (upstream) => ({ ...upstream, name: "oidc" }))
            })
          : Option.none()
    )
})

const profile = (provider: string, subject: string, email: string, verified: boolean): UpstreamProfile => ({
  provider,
  subject,
  email: Option.some(email),
  emailVerified: verified,
  data: { sub: subject, email, email_verified: verified }
})

/** A whole sign-in at `provider`, answering `answer`: the callback's outcome tag and the user, if any. */
const signIn = (provider: string, answer: UpstreamProfile) =>
  Effect.gen(function* () {
    answers.set(provider, answer)
    const started = yield* authorize({
      provider,
      scopes: "",
      redirectTo: "",
      codeChallenge: "",
      codeChallengeMethod: "",
      query: new Map()
    })
    const state = started.searchParams.get("state") ?? ""
    const outcome = yield* callback({
      url: new URL(`https://auth.example.com/callback?code=c&state=${encodeURIComponent(state)}`),
      client
    })
    return outcome._tag === "Session"
      ? { tag: "Session", userId: outcome.grant.user.id, provider: outcome.provider }
      : outcome._tag === "Failed"
        ? { tag: codeOf(outcome.error), userId: undefined }
        : { tag: outcome._tag, userId: undefined }
  })

const userByEmail = (email: string) =>
  Effect.flatMap(UserRepository, (users) => users.findByEmail(Email.make(email)))

const identitiesOf = (email: string) =>
  Effect.gen(function* () {
    const user = Option.getOrThrow(yield* userByEmail(email))
    const users = yield* UserRepository
    return (yield* users.identitiesOf(user.id)).map((identity) => identity.provider)
  })

const services = Layer.merge(MemoryServices.layer({ mailerAutoconfirm: false }), providers)

describe("automatic linking and unconfirmed accounts", () => {
  it.effect(
    "a provider vouching for the address takes over an account an unvouched sign-in made: the first way in is gone",
    () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const email = `victim-${crypto.randomUUID()}@example.com`
        // Someone signs in at a provider that does not vouch for the address: refused, unconfirmed.
        expect((yield* signIn("loose", profile("loose", "attacker", email, false))).tag).toBe(
          "provider_email_needs_verification"
        )
        // The address's owner signs in where it is vouched for: linked to that account, confirmed.
        const owner = yield* signIn("strict", profile("strict", "owner", email, true))
        expect(owner.tag).toBe("Session")
        expect(yield* identitiesOf(email)).toEqual(["strict"])
        // The first provider account no longer reaches the owner's account.
        const again = yield* signIn("loose", profile("loose", "attacker", email, false))
        expect(again.userId).not.toBe(owner.userId)
      }).pipe(Effect.provide(services))
  )

  it.effect("the session names the provider the sign-in named, for the redirect's fragment", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `acme-${crypto.randomUUID()}@example.com`
      const signedIn = yield* signIn("custom:acme", profile("custom:acme", "acme-user", email, true))
      expect([signedIn.tag, "provider" in signedIn ? signedIn.provider : undefined]).toEqual([
        "Session",
        "custom:acme"
      ])
      expect(yield* identitiesOf(email)).toEqual(["custom:acme"])
    }).pipe(Effect.provide(services))
  )

  it.effect("a returning account is confirmed only for the address it was made with", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `victim-${crypto.randomUUID()}@example.com`
      expect((yield* signIn("loose", profile("loose", "mover", email, false))).tag).toBe(
        "provider_email_needs_verification"
      )
      // The same provider account, now vouched for another address: still not confirmed.
      const moved = yield* signIn(
        "loose",
        profile("loose", "mover", `other-${crypto.randomUUID()}@example.com`, true)
      )
      expect(moved.tag).toBe("provider_email_needs_verification")
      expect(Option.getOrThrow(yield* userByEmail(email)).emailConfirmedAt).toEqual(Option.none())
      // Vouched for its own address: confirmed and signed in.
      expect((yield* signIn("loose", profile("loose", "mover", email, true))).tag).toBe("Session")
    }).pipe(Effect.provide(services))
  )

  it.effect(
    "a returning account that never confirmed its address stays shut when the provider gives no address",
    () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const email = `victim-${crypto.randomUUID()}@example.com`
        expect((yield* signIn("optional", profile("optional", "quiet", email, false))).tag).toBe(
          "provider_email_needs_verification"
        )
        // EMAIL_OPTIONAL lets a profile without an address through, not past the user's own.
        const quiet = { ...profile("optional", "quiet", email, false), email: Option.none<string>() }
        expect((yield* signIn("optional", quiet)).tag).toBe("provider_email_needs_verification")
      }).pipe(Effect.provide(services))
  )

  it.effect(
    "an address confirmed at a provider's sign-in is marked in the metadata, as Supabase Auth's Confirm",
    () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        // Unvouched at the provider, but confirmations are automatic: confirmed, and so marked.
        const email = `auto-${crypto.randomUUID()}@example.com`
        expect((yield* signIn("loose", profile("loose", "auto", email, false))).tag).toBe("Session")
        expect(Option.getOrThrow(yield* userByEmail(email)).userMetadata).toEqual({
          sub: "auto",
          email,
          email_verified: true
        })
      }).pipe(Effect.provide(Layer.merge(MemoryServices.layer({ mailerAutoconfirm: true }), providers)))
  )

  it.effect("an unconfirmed password sign-up loses its password when a vouching provider links to it", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `victim-${crypto.randomUUID()}@example.com`
      const password = "a password the owner never chose"
      const signedUp = yield* signup(MemoryServices.emailSignup(email, password))
      expect(signedUp._tag).not.toBe("SignedIn")
      expect((yield* signIn("strict", profile("strict", "owner-2", email, true))).tag).toBe("Session")
      expect(yield* identitiesOf(email)).toEqual(["strict"])
      // The provider's profile replaces what the unproven sign-up left, confirmed on top.
      expect(Option.getOrThrow(yield* userByEmail(email)).userMetadata).toEqual({
        sub: "owner-2",
        email,
        email_verified: true
      })
      const withPassword = yield* Effect.either(signInWithPassword({ email, phone: "", password, client }))
      expect(withPassword._tag).toBe("Left")
    }).pipe(Effect.provide(services))
  )
})
