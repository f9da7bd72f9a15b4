import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SecretHash, UserId } from "../Ids.js"

/**
 * Which WebAuthn ceremony a challenge starts: `create` registers a credential
 * (`navigator.credentials.create`), `request` asks for an assertion with one
 * (`navigator.credentials.get`). Supabase Auth's MFA challenge answers name them so.
 */
export const CeremonyType = Schema.Literal("create", "request")
export type CeremonyType = typeof CeremonyType.Type

export const UserVerification = Schema.Literal("required", "preferred", "discouraged")
export type UserVerification = typeof UserVerification.Type

/**
 * What the server keeps of a WebAuthn challenge it handed out, to check the answer against:
 * the challenge itself only as its SHA-256 digest (the authenticator signs the challenge, and
 * the verifying library takes a predicate over it, so the digest of what was signed is compared
 * with this one), and whether user verification was required. Supabase Auth keeps go-webauthn's
 * `SessionData` with the challenge in the clear; pending challenges live minutes and are not
 * imported.
 */
export class WebAuthnCeremony extends Schema.Class<WebAuthnCeremony>("WebAuthnCeremony")({
  type: CeremonyType,
  challengeHash: SecretHash,
  userVerification: UserVerification
}) {}

/** The user handle of a user's credentials: the UTF-8 bytes of the user id as text, as Supabase Auth's. */
export const userHandleOf = (userId: UserId): Uint8Array => new TextEncoder().encode(userId)

const decodeUserId = Schema.decodeUnknownOption(UserId)

/**
 * The user a discoverable credential's user handle names, if it names one: a sign-in with a
 * passkey learns its user from the handle alone.
 */
export const userIdOfHandle = (handle: Uint8Array): Option.Option<UserId> =>
  decodeUserId(new TextDecoder().decode(handle))
