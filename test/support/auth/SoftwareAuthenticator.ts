import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

/**
 * A WebAuthn authenticator in software, as a browser with a platform authenticator would answer:
 * a P-256 (ES256) key per credential, registrations with attestation `none`, assertions signed
 * over the authenticator data and the client data's hash. Its answers are the JSON a browser's
 * `PublicKeyCredential.toJSON()` (or auth-js's serialisers) gives, so they can be posted as they
 * are. Deterministic where tests need it: the counter starts where asked and moves by one.
 */

/** The creation options fields this authenticator reads (a subset of the JSON form). */
export interface CreationOptions {
  readonly challenge: string
  readonly rp: { readonly id?: string; readonly name?: string }
  readonly user: { readonly id: string; readonly name?: string }
  readonly excludeCredentials?: ReadonlyArray<{ readonly id: string }>
}

/** The request options fields this authenticator reads. */
export interface RequestOptions {
  readonly challenge: string
  readonly rpId?: string
  readonly allowCredentials?: ReadonlyArray<{ readonly id: string }>
}

export interface RegistrationResponseJson {
  readonly id: string
  readonly rawId: string
  readonly type: "public-key"
  readonly response: {
    readonly clientDataJSON: string
    readonly attestationObject: string
    readonly transports: ReadonlyArray<string>
  }
  readonly clientExtensionResults: Record<string, never>
  readonly authenticatorAttachment: "platform"
}

export interface AuthenticationResponseJson {
  readonly id: string
  readonly rawId: string
  readonly type: "public-key"
  readonly response: {
    readonly clientDataJSON: string
    readonly authenticatorData: string
    readonly signature: string
    readonly userHandle?: string
  }
  readonly clientExtensionResults: Record<string, never>
  readonly authenticatorAttachment: "platform"
}

/** A credential the authenticator holds. */
export interface HeldCredential {
  readonly id: string
  readonly rpId: string
  /** The user handle, base64url, as the options' `user.id` gave it. */
  readonly userHandle: string
  readonly privateKey: KeyObject
  counter: number
}

export interface Settings {
  /** The origin the "browser" reports in the client data. */
  readonly origin: string
  /** The AAGUID of the model; all zeros by default (what `none` attestation usually carries). */
  readonly aaguid?: string
  /** The first counter; 0 keeps it at 0 for good (an authenticator without a counter). */
  readonly counterStart?: number
  /** The backup-eligible and backed-up flags. */
  readonly backedUp?: boolean
  /** Whether the user is verified (the UV flag). */
  readonly userVerified?: boolean
  /** The id (base64url) of the credentials it creates, as a cloned key would repeat one; random by default. */
  readonly credentialId?: string
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")
const sha256 = (bytes: Uint8Array | string): Uint8Array =>
  new Uint8Array(createHash("sha256").update(bytes).digest())

const u32 = (value: number): Uint8Array => {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value)
  return out
}

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const aaguidBytes = (aaguid: string): Uint8Array =>
  new Uint8Array(Buffer.from(aaguid.replaceAll("-", ""), "hex"))

/** The COSE_Key of a P-256 public key (RFC 9053: kty EC2, alg ES256, crv P-256, x, y). */
const coseKeyOf = (publicKey: KeyObject): Uint8Array => {
  const jwk = publicKey.export({ format: "jwk" })
  if (jwk.x === undefined || jwk.y === undefined) throw new Error("not an EC key")
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x, "base64url"))],
      [-3, new Uint8Array(Buffer.from(jwk.y, "base64url"))]
    ])
  )
}

const flagUserPresent = 0x01
const flagUserVerified = 0x04
const flagBackupEligible = 0x08
const flagBackedUp = 0x10
const flagAttestedData = 0x40

export class SoftwareAuthenticator {
  readonly credentials: Array<HeldCredential> = []
  readonly origin: string
  private readonly aaguid: string
  private readonly counterStart: number
  private readonly backedUp: boolean
  private readonly userVerified: boolean
  private readonly credentialId: string | undefined

  constructor(settings: Settings) {
    this.origin = settings.origin
    this.aaguid = settings.aaguid ?? "00000000-0000-0000-0000-000000000000"
    this.counterStart = settings.counterStart ?? 1
    this.backedUp = settings.backedUp ?? false
    this.userVerified = settings.userVerified ?? true
    this.credentialId = settings.credentialId
  }

  private flags(extra: number): number {
    return (
      flagUserPresent |
      (this.userVerified ? flagUserVerified : 0) |
      (this.backedUp ? flagBackupEligible | flagBackedUp : 0) |
      extra
    )
  }

  private clientData(type: string, challenge: string, origin: string): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }))
  }

  /** The relying party id options name, else the origin's host (as a browser defaults it). */
  private rpIdOf(rpId: string | undefined, origin: string): string {
    return rpId ?? new URL(origin).hostname
  }

  /**
   * `navigator.credentials.create`: a new credential for the options' user, unless one of the
   * excluded credentials is held (then it throws, as the browser's `InvalidStateError`).
   */
  register(options: CreationOptions, overrides: { readonly origin?: string } = {}): RegistrationResponseJson {
    const origin = overrides.origin ?? this.origin
    const rpId = this.rpIdOf(options.rp.id, origin)
    const excluded = new Set((options.excludeCredentials ?? []).map((credential) => credential.id))
    if (this.credentials.some((held) => excluded.has(held.id)))
      throw new Error("InvalidStateError: credential excluded")
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const idBytes = new Uint8Array(
      this.credentialId === undefined ? randomBytes(16) : Buffer.from(this.credentialId, "base64url")
    )
    const held: HeldCredential = {
      id: b64url(idBytes),
      rpId,
      userHandle: options.user.id,
      privateKey,
      counter: this.counterStart
    }
    const idLength = new Uint8Array([idBytes.length >> 8, idBytes.length & 0xff])
    const authenticatorData = concat(
      sha256(rpId),
      new Uint8Array([this.flags(flagAttestedData)]),
      u32(held.counter),
      aaguidBytes(this.aaguid),
      idLength,
      idBytes,
      coseKeyOf(publicKey)
    )
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authenticatorData]
      ])
    )
    this.credentials.push(held)
    return {
      id: held.id,
      rawId: held.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"]
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform"
    }
  }

  /**
   * `navigator.credentials.get`: an assertion by the newest credential for the relying party
   * that the options allow (any, when they list none: a discoverable sign-in), or by
   * `credentialId`. The counter moves by one first, unless it stays at 0.
   */
  assert(
    options: RequestOptions,
    overrides: { readonly origin?: string; readonly credentialId?: string } = {}
  ): AuthenticationResponseJson {
    const origin = overrides.origin ?? this.origin
    const rpId = this.rpIdOf(options.rpId, origin)
    const allowed = new Set((options.allowCredentials ?? []).map((credential) => credential.id))
    const held = [...this.credentials]
      .reverse()
      .find(
        (credential) =>
          credential.rpId === rpId &&
          (overrides.credentialId === undefined || credential.id === overrides.credentialId) &&
          (allowed.size === 0 || allowed.has(credential.id))
      )
    if (held === undefined) throw new Error("NotAllowedError: no credential for this relying party")
    if (held.counter > 0) held.counter += 1
    const authenticatorData = concat(sha256(rpId), new Uint8Array([this.flags(0)]), u32(held.counter))
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, origin)
    const signature = sign("sha256", concat(authenticatorData, sha256(clientDataJSON)), held.privateKey)
    return {
      id: held.id,
      rawId: held.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(new Uint8Array(signature)),
        userHandle: held.userHandle
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform"
    }
  }
}
