import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as ProviderCatalog from "../../../adapters/idp/ProviderCatalog.js"
import * as Kakao from "../../../adapters/idp/providers/kakao.js"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { type IdTokenRequest, signInWithIdToken } from "../../../application/auth/IdTokenSignIn.js"
import {
  type ExternalProvider,
  ExternalProviders
} from "../../../application/auth/ports/ExternalProviders.js"
import { IdTokenRefused, IdTokenVerifier } from "../../../application/auth/ports/IdTokenVerifier.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"
import { signInAnonymously } from "../../../application/auth/SignInAnonymously.js"
import { signup } from "../../../application/auth/Signup.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { verify } from "../../../application/auth/Verify.js"
import * as IdTokenIssuer from "../../../domain/auth/IdTokenIssuer.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { phoneChange } from "./support/Scenarios.js"

/**
 * Native sign-in with an ID token on memory adapters: the provider's keys are out of the
 * picture (a scripted verifier takes a token that is its claims as JSON and checks only its
 * issuer and expiry, against the clock the use case passes), so what is tested is what the use
 * case decides from the claims.
 */

const issuer = "https://idp.example"
const client = { userAgent: Option.none(), ip: Option.none() }

const claimsOf = (token: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(token)
    return typeof parsed === "object" && parsed !== null ? { ...parsed } : undefined
  } catch {
    return undefined
  }
}

const verifier = Layer.succeed(IdTokenVerifier, {
  verify: (token, expected) => {
    const claims = claimsOf(token)
    if (claims === undefined || claims.iss !== expected.issuer)
      return Effect.fail(new IdTokenRefused({ message: "not this issuer's" }))
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= expected.now.getTime())
      return Effect.fail(new IdTokenRefused({ message: "ID token has expired" }))
    return Effect.succeed(claims)
  },
  issuerOf: (token) =>
    Option.fromNullable(claimsOf(token)?.iss).pipe(Option.filter((iss) => typeof iss === "string"))
})

const keycloak: ExternalProvider = {
  upstream: Either.right({
    name: "keycloak",
    authorizationUrl: () => Effect.dieMessage("no redirect sign-in here"),
    exchange: () => Effect.dieMessage("no redirect sign-in here")
  }),
  redirectUri: "https://auth.example.com/callback",
  emailOptional: false,
  passThrough: {},
  audiences: ["web-client", "native-app"],
  shapeClaims: (claims) => claims,
  skipNonceCheck: false,
  idTokenIssuer: Option.some(IdTokenIssuer.fixed(issuer)),
  takeHandshake: (url) => ({ url, handshake: Option.none() })
}

const providers = Layer.succeed(ExternalProviders, {
  find: (name: string) => Effect.succeed(name === "keycloak" ? Option.some(keycloak) : Option.none())
})

const services = Layer.mergeAll(MemoryServices.layer(), verifier, providers)

/** Kakao as the auth service builds it: its ID tokens' claims read as Supabase Auth reads them. */
const kakao: ExternalProvider = {
  ...keycloak,
  shapeClaims: Kakao.idTokenClaims,
  idTokenIssuer: Option.some(IdTokenIssuer.kakao)
}

const kakaoServices = Layer.mergeAll(
  MemoryServices.layer(),
  verifier,
  Layer.succeed(ExternalProviders, {
    find: (name: string) => Effect.succeed(name === "kakao" ? Option.some(kakao) : Option.none())
  })
)

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex")

/** A token the provider issued now, valid ten minutes, with `claims` over the usual ones. */
const idToken = (claims: Record<string, unknown> = {}) =>
  Effect.map(TestClock.currentTimeMillis, (now) =>
    JSON.stringify({
      iss: issuer,
      sub: crypto.randomUUID(),
      aud: "native-app",
      email: `native-${crypto.randomUUID()}@example.com`,
      email_verified: true,
      exp: Math.floor(now / 1000) + 600,
      ...claims
    })
  )

const request = (idToken: string, fields: Partial<IdTokenRequest> = {}): IdTokenRequest => ({
  provider: "keycloak",
  idToken,
  nonce: "",
  clientId: "",
  issuer: "",
  client,
  linkIdentity: Option.none(),
  ...fields
})

describe("signInWithIdToken on memory adapters under TestClock", () => {
  it.effect("a token for one of the provider's client ids signs in until it expires", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const token = yield* idToken({ aud: ["someone-else", "web-client"] })
      expect(yield* describedFailureOf(signInWithIdToken(request(token)))).toBe("ok")
      yield* TestClock.adjust(Duration.minutes(10))
      expect(yield* describedFailureOf(signInWithIdToken(request(token)))).toBe(
        "invalid request: Bad ID token"
      )
    }).pipe(Effect.provide(services))
  )

  it.effect("refusals of the token's claims in Supabase Auth's order and words", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      expect(
        yield* describedFailureOf(signInWithIdToken(request(yield* idToken({ aud: "someone-else" }))))
      ).toBe("invalid request: Unacceptable audience in id_token: [someone-else]")
      expect(
        yield* describedFailureOf(
          signInWithIdToken(request(yield* idToken({ aud: ["one", "two"], nonce: "x" })))
        )
      ).toBe("invalid request: Unacceptable audience in id_token: [one two]")
      expect(yield* describedFailureOf(signInWithIdToken(request(yield* idToken({ aud: undefined }))))).toBe(
        "invalid request: Unacceptable audience in id_token: []"
      )
      expect(yield* describedFailureOf(signInWithIdToken(request(yield* idToken({ aud: 7 }))))).toBe(
        "invalid request: Bad ID token"
      )
      // The subject is checked before the audience.
      expect(
        yield* describedFailureOf(
          signInWithIdToken(request(yield* idToken({ sub: undefined, aud: "someone-else" })))
        )
      ).toBe("invalid request: Missing sub claim in id_token")

      const nonced = yield* idToken({ nonce: sha256Hex("the right nonce") })
      expect(yield* describedFailureOf(signInWithIdToken(request(nonced, { nonce: "another nonce" })))).toBe(
        "invalid nonce: Nonces mismatch"
      )
      expect(yield* describedFailureOf(signInWithIdToken(request(nonced)))).toBe(
        "invalid request: Passed nonce and nonce in id_token should either both exist or not."
      )
      expect(
        yield* describedFailureOf(signInWithIdToken(request(nonced, { nonce: "the right nonce" })))
      ).toBe("ok")
    }).pipe(Effect.provide(services))
  )

  it.effect("a Kakao token signs in with its nickname as the name and its address verified", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `kakao-${crypto.randomUUID()}@example.com`
      // Kakao's ID tokens name no `email_verified`; Supabase Auth counts their address verified.
      const token = yield* idToken({
        iss: "https://kauth.kakao.com",
        email,
        email_verified: undefined,
        nickname: "Ka Kao",
        picture: "https://kakao.example/p.jpg"
      })
      const answer = yield* signInWithIdToken(request(token, { provider: "kakao" }))
      expect(answer.user.email).toEqual(Option.some(email))
      expect(Option.isSome(answer.user.emailConfirmedAt)).toBe(true)
      expect(answer.user.userMetadata).toMatchObject({
        name: "Ka Kao",
        full_name: "Ka Kao",
        preferred_username: "Ka Kao",
        email_verified: true
      })
      // Found by its issuer alone, too.
      const byIssuer = yield* idToken({ iss: "https://kauth.kakao.com", nickname: "Ka Kao" })
      expect(
        yield* describedFailureOf(
          signInWithIdToken(
            request(byIssuer, { provider: "", issuer: "https://kauth.kakao.com", clientId: "native-app" })
          )
        )
      ).toBe("ok")
    }).pipe(Effect.provide(kakaoServices))
  )

  it.effect("a token without an address signs in under MAILER_AUTOCONFIRM, else nothing is made", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const token = yield* idToken({ email: undefined, email_verified: undefined })
      const subject = String(claimsOf(token)?.sub)
      const refused = yield* describedFailureOf(signInWithIdToken(request(token)))
      expect(refused).toBe(
        "provider_email_needs_verification: Unverified email with keycloak. Verify the email with keycloak in order to sign in"
      )
      expect(
        yield* Effect.flatMap(UserRepository, (users) => users.findByIdentity("keycloak", subject))
      ).toEqual(Option.none())
      const signedIn = yield* Effect.zipRight(ensureSigningKey, signInWithIdToken(request(token))).pipe(
        Effect.provide(Layer.mergeAll(MemoryServices.layer(), verifier, providers))
      )
      expect(signedIn.user.email).toEqual(Option.none())
    }).pipe(
      Effect.provide(Layer.mergeAll(MemoryServices.layer({ mailerAutoconfirm: false }), verifier, providers))
    )
  )

  for (const name of ["facebook", "snapchat"]) {
    it.effect(`a ${name} token's address counts as verified, as Supabase Auth counts it`, () => {
      // The provider as the auth service builds it from the catalog: its claims and its issuer.
      const issuerRule = name === "facebook" ? IdTokenIssuer.facebook : IdTokenIssuer.snapchat
      const iss = issuerRule._tag === "Fixed" ? issuerRule.issuer : ""
      const provider: ExternalProvider = {
        ...keycloak,
        shapeClaims: Option.getOrThrow(ProviderCatalog.find(name)).idTokenClaims ?? ((claims) => claims),
        idTokenIssuer: Option.some(issuerRule)
      }
      return Effect.gen(function* () {
        yield* ensureSigningKey
        const email = `${name}-${crypto.randomUUID()}@example.com`
        // Facebook's Limited Login and Snapchat put no `email_verified` in their ID tokens.
        const token = yield* idToken({ iss, email, email_verified: undefined })
        const answer = yield* signInWithIdToken(request(token, { provider: name }))
        expect(Option.isSome(answer.user.emailConfirmedAt)).toBe(true)
        expect(answer.user.userMetadata).toMatchObject({ email, email_verified: true })
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            MemoryServices.layer({ mailerAutoconfirm: false }),
            verifier,
            Layer.succeed(ExternalProviders, {
              find: (asked: string) => Effect.succeed(asked === name ? Option.some(provider) : Option.none())
            })
          )
        )
      )
    })
  }

  it.effect("an Apple token's own claims are kept under custom_claims, as the callback keeps them", () => {
    const apple: ExternalProvider = {
      ...keycloak,
      shapeClaims: Option.getOrThrow(ProviderCatalog.find("apple")).idTokenClaims ?? ((claims) => claims),
      idTokenIssuer: Option.some(IdTokenIssuer.apple)
    }
    return Effect.gen(function* () {
      yield* ensureSigningKey
      const token = yield* idToken({
        iss: "https://appleid.apple.com",
        // Apple's addresses count as verified whatever the token says of them.
        email_verified: undefined,
        is_private_email: "true",
        auth_time: 1_700_000_000,
        transfer_sub: "transferred.subject"
      })
      const answer = yield* signInWithIdToken(request(token, { provider: "apple" }))
      const identity = answer.identities.find((entry) => entry.provider === "apple")
      expect(identity?.identityData).toMatchObject({
        email_verified: true,
        custom_claims: {
          is_private_email: true,
          auth_time: 1_700_000_000,
          transfer_sub: "transferred.subject"
        }
      })
      expect(identity?.identityData).not.toHaveProperty("transfer_sub")
      expect(identity?.identityData).not.toHaveProperty("is_private_email")
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          MemoryServices.layer(),
          verifier,
          Layer.succeed(ExternalProviders, {
            find: (asked: string) => Effect.succeed(asked === "apple" ? Option.some(apple) : Option.none())
          })
        )
      )
    )
  })

  describe("with link_identity (supabase-js linkIdentity({ provider, token }))", () => {
    // Numbers confirmed by their texted code, as a pending change of number needs.
    const linking = Layer.mergeAll(
      MemoryServices.layer({ manualLinkingEnabled: true, anonymousEnabled: true, smsAutoconfirm: false }),
      verifier,
      providers
    )

    /** A user signed up with a password, and the access token of their session. */
    const signedUp = Effect.gen(function* () {
      yield* ensureSigningKey
      const email = `${crypto.randomUUID()}@example.com`
      const outcome = yield* signup(MemoryServices.emailSignup(email, "correct horse battery staple"))
      if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
      return { user: outcome.grant.user, accessToken: Redacted.value(outcome.grant.access.token) }
    })

    const linkAs = (accessToken: string) => Option.some(Either.right(accessToken))

    it.effect(
      "links the token's identity to the signed-in user, whatever its address, and answers their session",
      () =>
        Effect.gen(function* () {
          const { user, accessToken } = yield* signedUp
          const token = yield* idToken({ email: `elsewhere-${crypto.randomUUID()}@example.com` })
          const grant = yield* signInWithIdToken(request(token, { linkIdentity: linkAs(accessToken) }))
          expect(grant.user.id).toBe(user.id)
          expect(grant.identities.map((identity) => identity.provider).sort()).toEqual(["email", "keycloak"])
          expect(grant.user.appMetadata.providers).toEqual(["email", "keycloak"])
          expect(Option.isSome(grant.user.email) && grant.user.email.value).toBe(
            Option.getOrThrow(user.email)
          )
          // The identity now signs its user in without linking.
          expect((yield* signInWithIdToken(request(token))).user.id).toBe(user.id)

          // Another user cannot take it.
          const other = yield* signedUp
          expect(
            yield* describedFailureOf(
              signInWithIdToken(request(token, { linkIdentity: linkAs(other.accessToken) }))
            )
          ).toBe("identity_already_exists: Identity is already linked to another user")
        }).pipe(Effect.provide(linking))
    )

    it.effect("refuses an identity already linked to the same user, in Supabase Auth's words", () =>
      Effect.gen(function* () {
        const { accessToken } = yield* signedUp
        const token = yield* idToken()
        yield* signInWithIdToken(request(token, { linkIdentity: linkAs(accessToken) }))
        expect(
          yield* describedFailureOf(signInWithIdToken(request(token, { linkIdentity: linkAs(accessToken) })))
        ).toBe("identity_already_exists: Identity is already linked")
      }).pipe(Effect.provide(linking))
    )

    it.effect("makes an anonymous user permanent with the address the provider verified", () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const anonymous = yield* signInAnonymously({}, client)
        const email = `upgraded-${crypto.randomUUID()}@example.com`
        const grant = yield* signInWithIdToken(
          request(yield* idToken({ email }), { linkIdentity: linkAs(Redacted.value(anonymous.access.token)) })
        )
        expect(grant.user.id).toBe(anonymous.user.id)
        expect(grant.user.isAnonymous).toBe(false)
        expect(grant.user.email).toEqual(Option.some(email))
        expect(Option.isSome(grant.user.emailConfirmedAt)).toBe(true)
      }).pipe(Effect.provide(linking))
    )

    it.effect("an address given to a user without one ends what was pending: a number's change", () =>
      Effect.gen(function* () {
        yield* ensureSigningKey
        const anonymous = yield* signInAnonymously({}, client)
        const signedIn = yield* Authenticate.user(Redacted.value(anonymous.access.token))
        const phone = "15555550177"
        const asked = yield* updateUser(signedIn, phoneChange(phone))
        expect(asked.user.phoneChange).toEqual(Option.some(phone))
        const [code] = yield* SentTexts.codesTo(phone)
        const email = `linked-${crypto.randomUUID()}@example.com`
        const grant = yield* signInWithIdToken(
          request(yield* idToken({ email }), { linkIdentity: linkAs(Redacted.value(anonymous.access.token)) })
        )
        expect(grant.user.email).toEqual(Option.some(email))
        expect(grant.user.phoneChange).toEqual(Option.none())
        expect(grant.user.phoneChangeSentAt).toEqual(Option.none())
        // The code texted for the change was asked without the address: it ended with the link.
        const confirmed = verify({
          type: "phone_change",
          token: code ?? "",
          tokenHash: "",
          email: "",
          phone,
          client
        })
        expect(yield* failureOf(confirmed)).toBe("otp_expired")
      }).pipe(Effect.provide(linking))
    )

    for (const autoconfirm of [false, true]) {
      it.effect(
        `keeps the link of an unverified address and waits on its confirmation mail (422 email_not_confirmed), MAILER_AUTOCONFIRM ${autoconfirm}`,
        () =>
          Effect.gen(function* () {
            yield* ensureSigningKey
            const anonymous = yield* signInAnonymously({}, client)
            const email = `unverified-${crypto.randomUUID()}@example.com`
            const token = yield* idToken({ email, email_verified: false })
            expect(
              yield* describedFailureOf(
                signInWithIdToken(
                  request(token, { linkIdentity: linkAs(Redacted.value(anonymous.access.token)) })
                )
              )
            ).toBe(
              "email_not_confirmed: Unverified email with keycloak. A confirmation email has been sent to your keycloak email"
            )
            const users = yield* UserRepository
            const user = Option.getOrThrow(yield* users.findById(anonymous.user.id))
            expect(user.email).toEqual(Option.some(email))
            expect(user.emailConfirmedAt).toEqual(Option.none())
            expect(Option.isSome(user.confirmationSentAt)).toBe(true)
            // As Supabase Auth: said unverified in the metadata unless every address counts as confirmed.
            expect(user.userMetadata.email_verified).toBe(autoconfirm ? undefined : false)
            expect(Option.isSome(yield* users.findByIdentity("keycloak", String(claimsOf(token)?.sub)))).toBe(
              true
            )
          }).pipe(
            Effect.provide(
              Layer.mergeAll(
                MemoryServices.layer({
                  manualLinkingEnabled: true,
                  anonymousEnabled: true,
                  smsAutoconfirm: false,
                  mailerAutoconfirm: autoconfirm
                }),
                verifier,
                providers
              )
            )
          )
      )
    }

    it.effect("needs the user's access token, checked before the token but after the request's fields", () =>
      Effect.gen(function* () {
        const token = yield* idToken()
        const refusedHeader = Option.some(Either.left(new AuthError.LinkingWithoutAccessToken()))
        expect(
          yield* describedFailureOf(signInWithIdToken(request(token, { linkIdentity: refusedHeader })))
        ).toBe("invalid request: Linking requires a valid user access token in Authorization")
        expect(
          yield* describedFailureOf(signInWithIdToken(request("", { linkIdentity: refusedHeader })))
        ).toBe("invalid request: id_token required")
        expect(
          yield* describedFailureOf(
            signInWithIdToken(request(yield* idToken({ aud: "someone-else" }), { linkIdentity: linkAs("x") }))
          )
        ).toMatch(/^bad_jwt: /)
        // Nobody was made or signed in by the refusals.
        const users = yield* UserRepository
        const subject = claimsOf(token)?.sub
        expect(yield* users.findByIdentity("keycloak", String(subject))).toEqual(Option.none())
      }).pipe(Effect.provide(linking))
    )

    it.effect("is refused while SECURITY_MANUAL_LINKING_ENABLED is off", () =>
      Effect.gen(function* () {
        const { accessToken } = yield* signedUp
        const token = yield* idToken()
        expect(
          yield* describedFailureOf(signInWithIdToken(request(token, { linkIdentity: linkAs(accessToken) })))
        ).toBe("manual_linking_disabled: Manual linking is disabled")
      }).pipe(Effect.provide(services))
    )
  })
})
