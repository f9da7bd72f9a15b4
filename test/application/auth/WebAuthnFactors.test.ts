import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import type { WebAuthnParams } from "../../../application/auth/VerifyFactor.js"
import type { FactorId } from "../../../domain/auth/Factor.js"
import { SoftwareAuthenticator } from "../../support/auth/SoftwareAuthenticator.js"
import { challengeAs, enrolled, services, signedInAs, verifyAs } from "./support/Factors.js"
import { describedFailureOf, failureOf } from "./support/Failure.js"
import { freshEmail, mailsTo, signedUp } from "./support/Scenarios.js"

/** MFA `webauthn` factors' challenge and verify, with a software authenticator at the test relying party. */

const ip = "192.0.2.1"
const origin = "http://localhost:3000"

const challenge = (signedIn: SignedIn, factorId: FactorId) =>
  challengeAs(signedIn, { factorId, channel: "", ipAddress: ip })

const verify = (
  signedIn: SignedIn,
  factorId: FactorId,
  challengeId: string,
  webAuthn: WebAuthnParams | undefined,
  from = ip
) =>
  verifyAs(signedIn, {
    factorId,
    challengeId,
    code: "",
    ipAddress: from,
    ...(webAuthn ? { webAuthn } : {})
  })

const answer = (type: string, response: unknown): WebAuthnParams => ({
  type,
  credentialResponse: Option.some(response)
})

/** A challenge's creation options; fails the test for another ceremony. */
const creationOf = (challenged: Effect.Effect.Success<ReturnType<typeof challengeAs>>) => {
  const ceremony = Option.getOrThrow(challenged.webAuthn)
  if (ceremony.type !== "create") throw new Error(`expected a create ceremony, got ${ceremony.type}`)
  return ceremony.options
}

const requestOf = (challenged: Effect.Effect.Success<ReturnType<typeof challengeAs>>) => {
  const ceremony = Option.getOrThrow(challenged.webAuthn)
  if (ceremony.type !== "request") throw new Error(`expected a request ceremony, got ${ceremony.type}`)
  return ceremony.options
}

/** A user (a day into the clock) with an unverified WebAuthn factor, and their authenticator. */
const withKey = Effect.gen(function* () {
  yield* TestClock.adjust(Duration.days(1))
  const email = freshEmail()
  const grant = yield* signedUp(email)
  const signedIn = yield* signedInAs(grant)
  const { factor } = yield* enrolled(signedIn.user.id, "webauthn")
  return { email, grant, signedIn, factor, authenticator: new SoftwareAuthenticator({ origin }) }
})

/** The same, the factor registered through its first challenge and verify. */
const registered = Effect.gen(function* () {
  const setup = yield* withKey
  const asked = yield* challenge(setup.signedIn, setup.factor.id)
  const response = setup.authenticator.register(creationOf(asked))
  const grant = yield* verify(setup.signedIn, setup.factor.id, asked.id, answer("create", response))
  return { ...setup, credentialId: response.id, raised: grant }
})

const storedCredential = (signedIn: SignedIn, factorId: FactorId) =>
  Effect.map(
    Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factorId)),
    Option.flatMap((found) => found.webAuthn)
  )

describe("WebAuthn factors: challenge and verify, on memory adapters", () => {
  it.effect("an unverified factor's challenge is a registration; its verify saves the credential, aal2", () =>
    Effect.gen(function* () {
      const { authenticator, factor, grant, signedIn } = yield* withKey
      const asked = yield* challenge(signedIn, factor.id)
      expect([asked.type, asked.expiresAt]).toEqual(["webauthn", 86_400 + 300])
      const options = creationOf(asked)
      expect(options.rp).toEqual({ id: "localhost", name: "latchkey tests" })
      expect(options.user.id).toBe(Buffer.from(signedIn.user.id).toString("base64url"))
      expect(options.excludeCredentials).toEqual([])
      const response = authenticator.register(options)
      const raised = yield* verify(signedIn, factor.id, asked.id, answer("create", response))
      expect(raised.session.id).toBe(grant.session.id)
      const claims = (yield* signedInAs(raised)).claims
      expect([claims.aal, claims.amr[0]?.method]).toEqual(["aal2", "mfa/webauthn"])
      const stored = yield* Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factor.id))
      expect(
        Option.map(stored, (found) => [found.factor.status, Option.isSome(found.webAuthnAaguid)])
      ).toEqual(Option.some(["verified", true]))
      expect(
        Option.map(yield* storedCredential(signedIn, factor.id), (credential) => credential.credentialId)
      ).toEqual(Option.some(response.id))
      // The challenge was deleted by its verify.
      expect(yield* failureOf(verify(signedIn, factor.id, asked.id, answer("create", response)))).toBe(
        "mfa_factor_not_found"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("a verified factor's challenge asks for an assertion; the counter is recorded", () =>
    Effect.gen(function* () {
      const { authenticator, credentialId, factor, signedIn } = yield* registered
      const asked = yield* challenge(signedIn, factor.id)
      const options = requestOf(asked)
      expect([options.rpId, options.allowCredentials.map((allowed) => allowed.id)]).toEqual([
        "localhost",
        [credentialId]
      ])
      const assertion = authenticator.assert(options)
      const raised = yield* verify(signedIn, factor.id, asked.id, answer("request", assertion))
      expect((yield* signedInAs(raised)).claims.aal).toBe("aal2")
      expect(
        Option.map(yield* storedCredential(signedIn, factor.id), (credential) => credential.signCount)
      ).toEqual(Option.some(2))
      // The same assertion for a new challenge: another challenge was signed.
      const again = yield* challenge(signedIn, factor.id)
      expect(
        yield* describedFailureOf(verify(signedIn, factor.id, again.id, answer("request", assertion)))
      ).toBe("mfa_verification_failed: Failed to validate WebAuthn MFA response")
    }).pipe(Effect.provide(services()))
  )

  it.effect("a second key's registration excludes the first key, which still verifies", () =>
    Effect.gen(function* () {
      const { authenticator, credentialId, factor, signedIn } = yield* registered
      const second = yield* enrolled(signedIn.user.id, "webauthn")
      const asked = yield* challenge(signedIn, second.factor.id)
      expect(creationOf(asked).excludeCredentials.map((excluded) => excluded.id)).toEqual([credentialId])
      // A challenge of the first factor answered by its own key, once more.
      const request = yield* challenge(signedIn, factor.id)
      expect(
        yield* failureOf(
          verify(signedIn, factor.id, request.id, answer("request", authenticator.assert(requestOf(request))))
        )
      ).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("refuses bad input with Supabase Auth's messages, never a defect", () =>
    Effect.gen(function* () {
      const { authenticator, factor, signedIn } = yield* withKey
      const asked = yield* challenge(signedIn, factor.id)
      const options = creationOf(asked)
      const refusal = (webAuthn: WebAuthnParams | undefined, from = ip) =>
        describedFailureOf(verify(signedIn, factor.id, asked.id, webAuthn, from))
      expect(yield* refusal(undefined)).toBe("validation_failed: WebAuthn config required")
      expect(yield* refusal(answer("get", {}))).toBe(
        "validation_failed: WebAuthn type must be create or request"
      )
      expect(yield* refusal({ type: "create", credentialResponse: Option.none() })).toBe(
        "validation_failed: credential_response required"
      )
      for (const malformed of ["garbage", 42, [], {}, { id: "x", response: {} }]) {
        expect(yield* refusal(answer("create", malformed))).toBe(
          "validation_failed: Invalid credential_response"
        )
        expect(yield* refusal(answer("request", malformed))).toBe(
          "validation_failed: Invalid credential_response"
        )
      }
      const response = authenticator.register(options)
      // An assertion-shaped answer to a registration, and answers from another origin.
      const otherKey = new SoftwareAuthenticator({ origin })
      otherKey.register(options)
      expect(
        yield* failureOf(
          verify(
            signedIn,
            factor.id,
            asked.id,
            answer("request", otherKey.assert({ challenge: options.challenge, rpId: "localhost" }))
          )
        )
      ).toBe("mfa_verification_failed")
      const elsewhere = new SoftwareAuthenticator({ origin: "http://evil.localhost:3000" })
      expect(
        yield* refusal(
          answer("create", elsewhere.register(options, { origin: "http://evil.localhost:3000" }))
        )
      ).toBe("mfa_verification_failed: Failed to validate WebAuthn MFA response")
      expect(yield* refusal(answer("create", response), "198.51.100.7")).toBe(
        "mfa_ip_address_mismatch: Challenge and verify IP addresses mismatch."
      )
      // None of that spent the challenge.
      expect(yield* failureOf(verify(signedIn, factor.id, asked.id, answer("create", response)))).toBe("ok")
    }).pipe(Effect.provide(services()))
  )

  it.effect("an expired challenge is refused and deleted", () =>
    Effect.gen(function* () {
      const { authenticator, factor, signedIn } = yield* withKey
      const asked = yield* challenge(signedIn, factor.id)
      const response = authenticator.register(creationOf(asked))
      yield* TestClock.adjust(Duration.seconds(301))
      expect(
        yield* describedFailureOf(verify(signedIn, factor.id, asked.id, answer("create", response)))
      ).toBe(
        `mfa_challenge_expired: MFA challenge ${asked.id} has expired, verify against another challenge or create a new challenge.`
      )
      expect(yield* failureOf(verify(signedIn, factor.id, asked.id, answer("create", response)))).toBe(
        "mfa_factor_not_found"
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("20 concurrent verifies of one answer: exactly one raises the session", () =>
    Effect.gen(function* () {
      const { authenticator, factor, signedIn } = yield* withKey
      const asked = yield* challenge(signedIn, factor.id)
      const response = authenticator.register(creationOf(asked))
      const results = yield* Effect.all(
        Array.from({ length: 20 }, () =>
          failureOf(verify(signedIn, factor.id, asked.id, answer("create", response)))
        ),
        { concurrency: "unbounded" }
      )
      expect(results.filter((result) => result === "ok")).toHaveLength(1)
      expect(new Set(results.filter((result) => result !== "ok"))).toEqual(
        new Set(["mfa_ip_address_mismatch"])
      )
    }).pipe(Effect.provide(services()))
  )

  it.effect("the first verify sends the enrolled mail when it is on", () =>
    Effect.gen(function* () {
      const { email } = yield* registered
      const mails = (yield* mailsTo(email)).filter((mail) => mail.kind === "mfa_factor_enrolled_notification")
      expect(mails.map((mail) => mail.variables.FactorType)).toEqual(["webauthn"])
    }).pipe(Effect.provide(services({ notifications: new Set(["mfa_factor_enrolled_notification"]) })))
  )

  it.effect("MFA_WEB_AUTHN_VERIFY_ENABLED off: challenge and verify refused with Supabase Auth's codes", () =>
    Effect.gen(function* () {
      const { factor, signedIn } = yield* withKey
      expect(yield* describedFailureOf(challenge(signedIn, factor.id))).toBe(
        "mfa_webauthn_verify_not_enabled: MFA verification is disabled for WebAuthn"
      )
      expect(yield* failureOf(verify(signedIn, factor.id, crypto.randomUUID(), undefined))).toBe(
        "mfa_webauthn_enroll_not_enabled"
      )
    }).pipe(
      Effect.provide(
        services(
          {},
          {
            switches: {
              totp: { enroll: true, verify: true },
              phone: { enroll: true, verify: true },
              webauthn: { enroll: true, verify: false },
              recovery_code: { enroll: true, verify: true }
            }
          }
        )
      )
    )
  )
})
