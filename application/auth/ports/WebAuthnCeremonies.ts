import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { UserVerification, WebAuthnCeremony } from "../../../domain/auth/WebAuthnCeremony.js"
import type { WebAuthnCredential } from "../../../domain/auth/WebAuthnCredential.js"

/**
 * The JSON forms of the WebAuthn options (WebAuthn Level 3 `PublicKeyCredentialCreationOptionsJSON`
 * and `PublicKeyCredentialRequestOptionsJSON`): every buffer is base64url text, as browsers'
 * `parseCreationOptionsFromJSON` and auth-js's `deserializeCredential*Options` read them. Sent as
 * they are: in the passkey answers' `options`, in the MFA challenge's
 * `webauthn.credential_options.publicKey`.
 */
export interface CredentialDescriptorJSON {
  readonly id: string
  readonly type: "public-key"
  readonly transports?: ReadonlyArray<string>
}

export interface CreationOptionsJSON {
  readonly rp: { readonly id: string; readonly name: string }
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string }
  readonly challenge: string
  readonly pubKeyCredParams: ReadonlyArray<{ readonly type: "public-key"; readonly alg: number }>
  readonly timeout: number
  readonly excludeCredentials: ReadonlyArray<CredentialDescriptorJSON>
  readonly authenticatorSelection: {
    readonly residentKey: ResidentKey
    readonly requireResidentKey: boolean
    readonly userVerification: UserVerification
  }
  readonly attestation: "none"
  readonly extensions: { readonly credProps: boolean }
}

export interface RequestOptionsJSON {
  readonly rpId: string
  readonly challenge: string
  readonly timeout: number
  readonly allowCredentials: ReadonlyArray<CredentialDescriptorJSON>
  readonly userVerification: UserVerification
}

export type ResidentKey = "required" | "preferred" | "discouraged"

/** A credential already stored, as an exclusion or an allowed credential of new options. */
export interface KnownCredential {
  /** Its credential id, base64url. */
  readonly id: string
  readonly transports: ReadonlyArray<string>
}

/** The relying party a ceremony is for (`MfaSettings.relyingParty`). */
export interface Party {
  readonly id: string
  readonly name: string
}

/** What a registration's options ask of the authenticator. */
export interface RegistrationRequest {
  readonly relyingParty: Party
  readonly user: {
    /** The user handle the credential will carry (`WebAuthnCeremony.userHandleOf`). */
    readonly handle: Uint8Array
    readonly name: string
    readonly displayName: string
  }
  /** Credentials the authenticator must not register again (the user's own). */
  readonly excludeCredentials: ReadonlyArray<KnownCredential>
  /** `required` for passkeys (discoverable), `discouraged` or `preferred` for an MFA factor. */
  readonly residentKey: ResidentKey
  readonly userVerification: UserVerification
  /** How long the browser may wait for the user (the options' `timeout`). */
  readonly timeout: Duration.Duration
}

/** What an authentication's options ask of the authenticator. */
export interface AuthenticationRequest {
  readonly relyingPartyId: string
  /** Empty for a discoverable sign-in (a passkey): the authenticator offers what it holds. */
  readonly allowCredentials: ReadonlyArray<KnownCredential>
  readonly userVerification: UserVerification
  readonly timeout: Duration.Duration
}

/**
 * Options to hand to the browser, and the ceremony to keep until its answer comes: the challenge
 * is in `options` and, only as a digest, in `ceremony`.
 */
export interface Started<Options> {
  readonly options: Options
  readonly ceremony: WebAuthnCeremony
}

/** Where an answer must come from: the relying party id and the origins its pages are served at. */
export interface Expected {
  readonly relyingPartyId: string
  readonly origins: ReadonlyArray<string>
}

/** A registration that verified: the credential to store and its authenticator's AAGUID. */
export interface Registered {
  readonly credential: WebAuthnCredential
  /** The authenticator model's AAGUID (all zeros for authenticators that hide it). */
  readonly aaguid: string
  readonly userVerified: boolean
}

/**
 * An assertion read but not yet verified: who it claims to be, so that the caller can find the
 * stored credential to verify it against. Opaque otherwise.
 */
export interface Assertion {
  /** The credential id it names, base64url. */
  readonly credentialId: string
  /** The user handle a discoverable credential returns (none from a non-discoverable one). */
  readonly userHandle: Option.Option<Uint8Array>
  /** The response as presented, for `verifyAuthentication`. */
  readonly response: unknown
}

/** An assertion that verified. */
export interface Authenticated {
  /** The counter the authenticator presented (`Passkey.signCountAccepted` against the stored one). */
  readonly signCount: number
  readonly backedUp: boolean
  readonly userVerified: boolean
  readonly userHandle: Option.Option<Uint8Array>
}

/**
 * The browser's answer is not a WebAuthn credential JSON of the expected kind at all (fields
 * missing or of the wrong type): Supabase Auth's "Invalid credential response" /
 * "Invalid credential_response".
 */
export class MalformedCredential extends Schema.TaggedError<MalformedCredential>()(
  "MalformedCredential",
  {}
) {}

/**
 * The answer is well formed but the ceremony fails: another challenge or purpose, an origin or
 * relying party not expected, a bad signature or attestation, user presence or verification
 * missing, a counter not above the stored one, another credential than the stored one. Why is
 * not told: the library's words can carry the challenge.
 */
export class CeremonyFailed extends Schema.TaggedError<CeremonyFailed>()("CeremonyFailed", {}) {}

/**
 * The WebAuthn ceremonies (W3C WebAuthn Level 3, §7), for passkeys and for MFA `webauthn`
 * factors alike (docs/decisions/0015): options for the browser's `navigator.credentials.create`
 * (a `create` ceremony) or `.get` (a `request` ceremony), and the verification of its answer
 * against the ceremony kept. The challenge is random and kept only as a digest; the answer's
 * challenge is compared with it by digest. Policy (who may register, how many, which stored
 * credential, the counter's persistence) is the callers'.
 */
export class WebAuthnCeremonies extends Context.Tag("latchkey/auth/WebAuthnCeremonies")<
  WebAuthnCeremonies,
  {
    /** Creation options with a fresh challenge, and their `create` ceremony. */
    readonly registrationOptions: (
      request: RegistrationRequest
    ) => Effect.Effect<Started<CreationOptionsJSON>>
    /**
     * Verifies the browser's registration answer (`PublicKeyCredential` JSON, as sent) against
     * a `create` ceremony: attestation `none` or any the library verifies, origin, relying party,
     * user presence, and user verification when the ceremony required it.
     */
    readonly verifyRegistration: (
      response: unknown,
      ceremony: WebAuthnCeremony,
      expected: Expected
    ) => Effect.Effect<Registered, MalformedCredential | CeremonyFailed>
    /** Request options with a fresh challenge, and their `request` ceremony. */
    readonly authenticationOptions: (
      request: AuthenticationRequest
    ) => Effect.Effect<Started<RequestOptionsJSON>>
    /** Reads which credential (and user handle) an assertion names, before it is verified. */
    readonly readAssertion: (response: unknown) => Effect.Effect<Assertion, MalformedCredential>
    /**
     * Verifies an assertion against a `request` ceremony and the stored credential it named:
     * same credential id, signature under its public key, origin, relying party, user presence,
     * user verification when required, and a counter above the stored one (or 0 against 0).
     * The counter is only checked against `credential.signCount`: persisting it once-only is the
     * caller's (`PasskeyStore.recordUse`).
     */
    readonly verifyAuthentication: (
      assertion: Assertion,
      ceremony: WebAuthnCeremony,
      credential: WebAuthnCredential,
      expected: Expected
    ) => Effect.Effect<Authenticated, CeremonyFailed>
  }
>() {}
