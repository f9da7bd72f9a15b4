import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import {
  type Assertion,
  CeremonyFailed,
  type CredentialDescriptorJSON,
  type KnownCredential,
  MalformedCredential,
  WebAuthnCeremonies
} from "../../../application/auth/ports/WebAuthnCeremonies.js"
import { Secrets } from "../../../application/ports/Secrets.js"
import { WebAuthnCeremony } from "../../../domain/auth/WebAuthnCeremony.js"
import { WebAuthnCredential } from "../../../domain/auth/WebAuthnCredential.js"

/** Bytes of a challenge: 256 bits, as go-webauthn's and the library's own. */
const challengeBytes = 32

const base64url = /^[A-Za-z0-9_-]*$/
const Base64Url = Schema.String.pipe(Schema.pattern(base64url))

/** The fields of a registration answer the verification reads; more are allowed and ignored. */
const RegistrationJson = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    attestationObject: Base64Url,
    transports: Schema.optional(Schema.Array(Schema.String))
  }),
  authenticatorAttachment: Schema.optional(Schema.NullOr(Schema.Literal("platform", "cross-platform")))
})

/** The fields of an assertion the verification reads. */
const AssertionJson = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    authenticatorData: Base64Url,
    signature: Base64Url,
    userHandle: Schema.optional(Schema.NullOr(Base64Url))
  }),
  authenticatorAttachment: Schema.optional(Schema.NullOr(Schema.Literal("platform", "cross-platform")))
})

const decodeRegistration = Schema.decodeUnknownOption(RegistrationJson)
const decodeAssertion = Schema.decodeUnknownOption(AssertionJson)

const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")
const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.from(text, "base64url"))

/** Only the fields the library reads, rebuilt so that no other key of the input reaches it. */
const registrationOf = (json: typeof RegistrationJson.Type): RegistrationResponseJSON => ({
  id: json.id,
  rawId: json.rawId,
  type: json.type,
  response: {
    clientDataJSON: json.response.clientDataJSON,
    attestationObject: json.response.attestationObject,
    ...(json.response.transports === undefined ? {} : { transports: [...json.response.transports] })
  },
  clientExtensionResults: {},
  ...(json.authenticatorAttachment == null ? {} : { authenticatorAttachment: json.authenticatorAttachment })
})

const assertionOf = (json: typeof AssertionJson.Type): AuthenticationResponseJSON => ({
  id: json.id,
  rawId: json.rawId,
  type: json.type,
  response: {
    clientDataJSON: json.response.clientDataJSON,
    authenticatorData: json.response.authenticatorData,
    signature: json.response.signature,
    ...(json.response.userHandle == null ? {} : { userHandle: json.response.userHandle })
  },
  clientExtensionResults: {},
  ...(json.authenticatorAttachment == null ? {} : { authenticatorAttachment: json.authenticatorAttachment })
})

const descriptors = (credentials: ReadonlyArray<KnownCredential>) =>
  credentials.map((credential) => ({ id: credential.id, transports: [...credential.transports] }))

const descriptorsJson = (
  credentials: ReadonlyArray<{ readonly id: string; readonly transports?: ReadonlyArray<string> }> | undefined
): ReadonlyArray<CredentialDescriptorJSON> =>
  (credentials ?? []).map((credential) => ({
    id: credential.id,
    type: "public-key",
    ...(credential.transports === undefined || credential.transports.length === 0
      ? {}
      : { transports: credential.transports })
  }))

/**
 * `WebAuthnCeremonies` over `@simplewebauthn/server` (docs/decisions/0015, "Libraries"). The
 * challenge's bytes come from `Secrets`; the ceremony keeps `Secrets.hash` of its base64url text,
 * and the library is given a predicate that compares the challenge of the client data with that
 * digest (`Secrets.verify`, constant time), so the challenge itself is never stored. The
 * library's own failures (it throws for bad input as for failed checks) are `CeremonyFailed`;
 * answers that are not credential JSON at all are caught before it, as `MalformedCredential`.
 */
export const layer = Layer.effect(
  WebAuthnCeremonies,
  Effect.gen(function* () {
    const secrets = yield* Secrets
    // Loaded at the first ceremony, once: a service that runs none (WebAuthn factors and
    // passkeys are off by default) does not hold its ~10 MiB of resident memory.
    const library = yield* Effect.cached(Effect.promise(() => import("@simplewebauthn/server")))
    const challenge = Effect.map(
      secrets.bytes(challengeBytes),
      (bytes) => new Uint8Array(Redacted.value(bytes))
    )
    const ceremonyOf = (
      type: WebAuthnCeremony["type"],
      text: string,
      userVerification: WebAuthnCeremony["userVerification"]
    ) =>
      Effect.map(
        secrets.hash(Redacted.make(text)),
        (challengeHash) => new WebAuthnCeremony({ type, challengeHash, userVerification })
      )
    /**
     * The library's challenge check: the digest of what the authenticator signed against the one
     * kept, run in the request's runtime so that its span stays the request's.
     */
    const matches = (runtime: Runtime.Runtime<never>, ceremony: WebAuthnCeremony) => (presented: string) =>
      Runtime.runPromise(runtime)(secrets.verify(Redacted.make(presented), ceremony.challengeHash))
    const attempt = <A>(run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: () => new CeremonyFailed() })

    return WebAuthnCeremonies.of({
      registrationOptions: (request) =>
        Effect.gen(function* () {
          const { generateRegistrationOptions } = yield* library
          const bytes = yield* challenge
          const options = yield* Effect.promise(() =>
            generateRegistrationOptions({
              rpID: request.relyingParty.id,
              rpName: request.relyingParty.name,
              userID: new Uint8Array(request.user.handle),
              userName: request.user.name,
              userDisplayName: request.user.displayName,
              challenge: bytes,
              timeout: Duration.toMillis(request.timeout),
              attestationType: "none",
              excludeCredentials: descriptors(request.excludeCredentials),
              authenticatorSelection: {
                residentKey: request.residentKey,
                userVerification: request.userVerification
              }
            })
          )
          const ceremony = yield* ceremonyOf("create", options.challenge, request.userVerification)
          return {
            options: {
              rp: { id: request.relyingParty.id, name: options.rp.name },
              user: options.user,
              challenge: options.challenge,
              pubKeyCredParams: options.pubKeyCredParams.map((param) => ({
                type: "public-key",
                alg: param.alg
              })),
              timeout: Duration.toMillis(request.timeout),
              excludeCredentials: descriptorsJson(options.excludeCredentials),
              authenticatorSelection: {
                residentKey: request.residentKey,
                requireResidentKey: request.residentKey === "required",
                userVerification: request.userVerification
              },
              attestation: "none",
              extensions: { credProps: true }
            },
            ceremony
          }
        }),

      verifyRegistration: (response, ceremony, expected) =>
        Effect.gen(function* () {
          const json = yield* Option.match(decodeRegistration(response), {
            onNone: () => Effect.fail(new MalformedCredential()),
            onSome: Effect.succeed
          })
          if (ceremony.type !== "create") return yield* Effect.fail(new CeremonyFailed())
          const { verifyRegistrationResponse } = yield* library
          const runtime = yield* Effect.runtime<never>()
          const verified = yield* attempt(() =>
            verifyRegistrationResponse({
              response: registrationOf(json),
              expectedChallenge: matches(runtime, ceremony),
              expectedOrigin: [...expected.origins],
              expectedRPID: expected.relyingPartyId,
              requireUserVerification: ceremony.userVerification === "required"
            })
          )
          if (!verified.verified) return yield* Effect.fail(new CeremonyFailed())
          const info = verified.registrationInfo
          return {
            credential: new WebAuthnCredential({
              credentialId: info.credential.id,
              publicKey: toBase64Url(info.credential.publicKey),
              attestationType: info.fmt,
              signCount: info.credential.counter,
              transports: info.credential.transports ?? [],
              backupEligible: info.credentialDeviceType === "multiDevice",
              backedUp: info.credentialBackedUp
            }),
            aaguid: info.aaguid,
            userVerified: info.userVerified
          }
        }),

      authenticationOptions: (request) =>
        Effect.gen(function* () {
          const { generateAuthenticationOptions } = yield* library
          const bytes = yield* challenge
          const options = yield* Effect.promise(() =>
            generateAuthenticationOptions({
              rpID: request.relyingPartyId,
              allowCredentials: descriptors(request.allowCredentials),
              challenge: bytes,
              timeout: Duration.toMillis(request.timeout),
              userVerification: request.userVerification
            })
          )
          const ceremony = yield* ceremonyOf("request", options.challenge, request.userVerification)
          return {
            options: {
              rpId: request.relyingPartyId,
              challenge: options.challenge,
              timeout: Duration.toMillis(request.timeout),
              allowCredentials: descriptorsJson(options.allowCredentials),
              userVerification: request.userVerification
            },
            ceremony
          }
        }),

      readAssertion: (response) =>
        Option.match(decodeAssertion(response), {
          onNone: () => Effect.fail(new MalformedCredential()),
          onSome: (json): Effect.Effect<Assertion> =>
            Effect.succeed({
              credentialId: json.id,
              userHandle: Option.map(Option.fromNullable(json.response.userHandle), fromBase64Url),
              response: json
            })
        }),

      verifyAuthentication: (assertion, ceremony, credential, expected) =>
        Effect.gen(function* () {
          // `readAssertion` made `response`; decoding again keeps `Assertion` free of library types.
          const json = yield* Option.match(decodeAssertion(assertion.response), {
            onNone: () => Effect.fail(new CeremonyFailed()),
            onSome: Effect.succeed
          })
          if (ceremony.type !== "request" || json.id !== credential.credentialId) {
            return yield* Effect.fail(new CeremonyFailed())
          }
          const { verifyAuthenticationResponse } = yield* library
          const runtime = yield* Effect.runtime<never>()
          const verified = yield* attempt(() =>
            verifyAuthenticationResponse({
              response: assertionOf(json),
              expectedChallenge: matches(runtime, ceremony),
              expectedOrigin: [...expected.origins],
              expectedRPID: expected.relyingPartyId,
              credential: {
                id: credential.credentialId,
                publicKey: fromBase64Url(credential.publicKey),
                counter: credential.signCount,
                transports: [...credential.transports]
              },
              requireUserVerification: ceremony.userVerification === "required"
            })
          )
          if (!verified.verified) return yield* Effect.fail(new CeremonyFailed())
          return {
            signCount: verified.authenticationInfo.newCounter,
            backedUp: verified.authenticationInfo.credentialBackedUp,
            userVerified: verified.authenticationInfo.userVerified,
            userHandle: assertion.userHandle
          }
        })
    })
  })
)
