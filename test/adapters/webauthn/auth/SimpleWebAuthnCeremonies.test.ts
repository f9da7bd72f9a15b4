import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as SimpleWebAuthnCeremonies from "../../../../adapters/webauthn/auth/SimpleWebAuthnCeremonies.js"
import {
  type RegistrationRequest,
  WebAuthnCeremonies
} from "../../../../application/auth/ports/WebAuthnCeremonies.js"
import { WebAuthnCeremony } from "../../../../domain/auth/WebAuthnCeremony.js"
import { WebAuthnCredential } from "../../../../domain/auth/WebAuthnCredential.js"
import { SoftwareAuthenticator } from "../../../support/auth/SoftwareAuthenticator.js"

const origin = "https://app.example.com"
const expected = { relyingPartyId: "example.com", origins: [origin] }
const handle = new TextEncoder().encode("8b3c9f5e-0a4d-4c6b-9a1e-2f7d3c5b1a90")

const registration: RegistrationRequest = {
  relyingParty: { id: "example.com", name: "Example" },
  user: { handle, name: "ada@example.com", displayName: "Ada" },
  excludeCredentials: [],
  residentKey: "required",
  userVerification: "preferred",
  timeout: Duration.minutes(5)
}

const live = SimpleWebAuthnCeremonies.layer.pipe(Layer.provide(NodeSecrets.layer))

/** Registers a credential with `authenticator` through the adapter; the stored credential. */
const registered = (authenticator: SoftwareAuthenticator) =>
  Effect.gen(function* () {
    const ceremonies = yield* WebAuthnCeremonies
    const started = yield* ceremonies.registrationOptions(registration)
    const answer = authenticator.register(started.options)
    return (yield* ceremonies.verifyRegistration(answer, started.ceremony, expected)).credential
  })

describe("SimpleWebAuthnCeremonies", () => {
  describe("registration", () => {
    it.effect("gives creation options in the JSON form and keeps the challenge only as its digest", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const started = yield* ceremonies.registrationOptions({
          ...registration,
          excludeCredentials: [{ id: "AAEC", transports: ["internal"] }]
        })
        const { options, ceremony } = started
        expect(options.rp).toEqual({ id: "example.com", name: "Example" })
        expect(options.user).toEqual({
          id: Buffer.from(handle).toString("base64url"),
          name: "ada@example.com",
          displayName: "Ada"
        })
        expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(options.timeout).toBe(300_000)
        expect(options.attestation).toBe("none")
        expect(options.authenticatorSelection).toEqual({
          residentKey: "required",
          requireResidentKey: true,
          userVerification: "preferred"
        })
        expect(options.excludeCredentials).toEqual([
          { id: "AAEC", type: "public-key", transports: ["internal"] }
        ])
        expect(options.pubKeyCredParams.map((param) => param.alg)).toContain(-7)
        expect(ceremony.type).toBe("create")
        expect(ceremony.userVerification).toBe("preferred")
        expect(ceremony.challengeHash).toBe(createHash("sha256").update(options.challenge).digest("hex"))
        expect(JSON.stringify(ceremony)).not.toContain(options.challenge)
        const again = yield* ceremonies.registrationOptions(registration)
        expect(again.options.challenge).not.toBe(options.challenge)
      }).pipe(Effect.provide(live))
    )

    it.effect("verifies a software authenticator's registration into the credential to store", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const authenticator = new SoftwareAuthenticator({
          origin,
          aaguid: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4",
          backedUp: true
        })
        const started = yield* ceremonies.registrationOptions(registration)
        const answer = authenticator.register(started.options)
        const result = yield* ceremonies.verifyRegistration(answer, started.ceremony, expected)
        expect(result.credential.credentialId).toBe(answer.id)
        expect(result.credential.attestationType).toBe("none")
        expect(result.credential.signCount).toBe(1)
        expect(result.credential.transports).toEqual(["internal"])
        expect(result.credential.backupEligible).toBe(true)
        expect(result.credential.backedUp).toBe(true)
        expect(result.credential.publicKey).toMatch(/^[A-Za-z0-9_-]+$/)
        expect(result.aaguid).toBe("ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4")
        expect(result.userVerified).toBe(true)
      }).pipe(Effect.provide(live))
    )

    it.effect(
      "refuses another challenge's answer, a wrong origin or relying party, and a request ceremony",
      () =>
        Effect.gen(function* () {
          const ceremonies = yield* WebAuthnCeremonies
          const authenticator = new SoftwareAuthenticator({ origin })
          const started = yield* ceremonies.registrationOptions(registration)
          const other = yield* ceremonies.registrationOptions(registration)
          const answer = authenticator.register(started.options)
          const outcome = (
            response: unknown,
            ceremony: WebAuthnCeremony,
            where: { relyingPartyId: string; origins: ReadonlyArray<string> }
          ) =>
            Effect.map(Effect.either(ceremonies.verifyRegistration(response, ceremony, where)), (either) =>
              Either.isLeft(either) ? either.left._tag : "verified"
            )
          expect(yield* outcome(answer, other.ceremony, expected)).toBe("CeremonyFailed")
          expect(
            yield* outcome(answer, started.ceremony, { ...expected, origins: ["https://evil.example"] })
          ).toBe("CeremonyFailed")
          expect(
            yield* outcome(answer, started.ceremony, { ...expected, relyingPartyId: "other.example" })
          ).toBe("CeremonyFailed")
          const asRequest = new WebAuthnCeremony({ ...started.ceremony, type: "request" })
          expect(yield* outcome(answer, asRequest, expected)).toBe("CeremonyFailed")
          const fromElsewhere = authenticator.register(started.options, { origin: "https://evil.example" })
          expect(yield* outcome(fromElsewhere, started.ceremony, expected)).toBe("CeremonyFailed")
          const tampered = { ...answer, response: { ...answer.response, attestationObject: "AAAA" } }
          expect(yield* outcome(tampered, started.ceremony, expected)).toBe("CeremonyFailed")
          expect(yield* outcome(answer, started.ceremony, expected)).toBe("verified")
        }).pipe(Effect.provide(live))
    )

    it.effect("calls an answer that is not credential JSON malformed", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const started = yield* ceremonies.registrationOptions(registration)
        for (const response of [
          null,
          "x",
          {},
          { id: "a", rawId: "a", type: "public-key", response: {} },
          { id: "a+b" }
        ]) {
          const either = yield* Effect.either(
            ceremonies.verifyRegistration(response, started.ceremony, expected)
          )
          expect(Either.isLeft(either) && either.left._tag).toBe("MalformedCredential")
        }
      }).pipe(Effect.provide(live))
    )

    it.effect("requires user verification when the ceremony asked for it", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const authenticator = new SoftwareAuthenticator({ origin, userVerified: false })
        const preferred = yield* ceremonies.registrationOptions(registration)
        const passes = yield* ceremonies.verifyRegistration(
          authenticator.register(preferred.options),
          preferred.ceremony,
          expected
        )
        expect(passes.userVerified).toBe(false)
        const required = yield* ceremonies.registrationOptions({
          ...registration,
          userVerification: "required"
        })
        const either = yield* Effect.either(
          ceremonies.verifyRegistration(authenticator.register(required.options), required.ceremony, expected)
        )
        expect(Either.isLeft(either) && either.left._tag).toBe("CeremonyFailed")
      }).pipe(Effect.provide(live))
    )
  })

  describe("authentication", () => {
    it.effect("gives discoverable request options, reads the assertion's user handle, and verifies it", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const authenticator = new SoftwareAuthenticator({ origin })
        const credential = yield* registered(authenticator)
        const started = yield* ceremonies.authenticationOptions({
          relyingPartyId: "example.com",
          allowCredentials: [],
          userVerification: "preferred",
          timeout: Duration.minutes(5)
        })
        expect(started.options).toEqual({
          rpId: "example.com",
          challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          timeout: 300_000,
          allowCredentials: [],
          userVerification: "preferred"
        })
        expect(started.ceremony.type).toBe("request")
        const answer = authenticator.assert(started.options)
        const assertion = yield* ceremonies.readAssertion(answer)
        expect(assertion.credentialId).toBe(credential.credentialId)
        expect(Option.map(assertion.userHandle, (bytes) => new TextDecoder().decode(bytes))).toEqual(
          Option.some("8b3c9f5e-0a4d-4c6b-9a1e-2f7d3c5b1a90")
        )
        const result = yield* ceremonies.verifyAuthentication(
          assertion,
          started.ceremony,
          credential,
          expected
        )
        expect(result.signCount).toBe(2)
        expect(result.backedUp).toBe(false)
        expect(result.userVerified).toBe(true)
        expect(Option.isSome(result.userHandle)).toBe(true)
      }).pipe(Effect.provide(live))
    )

    it.effect("refuses a replayed counter, another credential, origin, challenge or ceremony type", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const authenticator = new SoftwareAuthenticator({ origin })
        const credential = yield* registered(authenticator)
        const otherCredential = yield* registered(new SoftwareAuthenticator({ origin }))
        const request = {
          relyingPartyId: "example.com",
          allowCredentials: [{ id: credential.credentialId, transports: ["internal"] }],
          userVerification: "preferred" as const,
          timeout: Duration.minutes(5)
        }
        const started = yield* ceremonies.authenticationOptions(request)
        expect(started.options.allowCredentials).toEqual([
          { id: credential.credentialId, type: "public-key", transports: ["internal"] }
        ])
        const other = yield* ceremonies.authenticationOptions(request)
        const assertion = yield* ceremonies.readAssertion(authenticator.assert(started.options))
        const outcome = (
          ceremony: WebAuthnCeremony,
          stored: WebAuthnCredential,
          where: { relyingPartyId: string; origins: ReadonlyArray<string> } = expected,
          presented = assertion
        ) =>
          Effect.map(
            Effect.either(ceremonies.verifyAuthentication(presented, ceremony, stored, where)),
            (either) => (Either.isLeft(either) ? either.left._tag : either.right.signCount)
          )
        expect(yield* outcome(other.ceremony, credential)).toBe("CeremonyFailed")
        expect(yield* outcome(started.ceremony, otherCredential)).toBe("CeremonyFailed")
        expect(
          yield* outcome(started.ceremony, credential, { ...expected, origins: ["https://evil.example"] })
        ).toBe("CeremonyFailed")
        expect(
          yield* outcome(new WebAuthnCeremony({ ...started.ceremony, type: "create" }), credential)
        ).toBe("CeremonyFailed")
        // The stored counter already at the presented one: a replay.
        expect(
          yield* outcome(started.ceremony, new WebAuthnCredential({ ...credential, signCount: 2 }))
        ).toBe("CeremonyFailed")
        expect(yield* outcome(started.ceremony, credential)).toBe(2)
        const forged = yield* ceremonies.readAssertion({
          ...authenticator.assert(started.options),
          id: credential.credentialId,
          response: { ...authenticator.assert(started.options).response, signature: "AAAA" }
        })
        expect(yield* outcome(started.ceremony, credential, expected, forged)).toBe("CeremonyFailed")
      }).pipe(Effect.provide(live))
    )

    it.effect("accepts 0 against 0 for an authenticator without a counter", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const authenticator = new SoftwareAuthenticator({ origin, counterStart: 0 })
        const credential = yield* registered(authenticator)
        expect(credential.signCount).toBe(0)
        const started = yield* ceremonies.authenticationOptions({
          relyingPartyId: "example.com",
          allowCredentials: [],
          userVerification: "preferred",
          timeout: Duration.minutes(5)
        })
        const assertion = yield* ceremonies.readAssertion(authenticator.assert(started.options))
        const result = yield* ceremonies.verifyAuthentication(
          assertion,
          started.ceremony,
          credential,
          expected
        )
        expect(result.signCount).toBe(0)
      }).pipe(Effect.provide(live))
    )

    it.effect("calls an assertion that is not credential JSON malformed", () =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        for (const response of [
          undefined,
          7,
          { id: "x" },
          { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "%%" } }
        ]) {
          const either = yield* Effect.either(ceremonies.readAssertion(response))
          expect(Either.isLeft(either) && either.left._tag).toBe("MalformedCredential")
        }
      }).pipe(Effect.provide(live))
    )
  })
})
