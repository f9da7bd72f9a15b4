import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserId } from "../Ids.js"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"
import { WebAuthnCeremony } from "./WebAuthnCeremony.js"

/**
 * A passkey: a discoverable WebAuthn credential a user signs in with, Supabase Auth's
 * `webauthn_credentials` row. Its user handle is the user id (`WebAuthnCeremony.userHandleOf`).
 */
export const PasskeyId = Schema.UUID.pipe(Schema.brand("PasskeyId"))
export type PasskeyId = typeof PasskeyId.Type

export class Passkey extends Schema.Class<Passkey>("Passkey")({
  id: PasskeyId,
  userId: UserId,
  /** The credential id the authenticator chose, base64url. */
  credentialId: Schema.String,
  /** The COSE public key, base64url. */
  publicKey: Schema.String,
  attestationType: Schema.String,
  aaguid: Schema.OptionFromNullOr(Schema.UUID),
  signCount: Schema.NonNegativeInt,
  transports: Schema.Array(Schema.String),
  backupEligible: Schema.Boolean,
  backedUp: Schema.Boolean,
  friendlyName: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastUsedAt: Schema.OptionFromNullOr(Timestamp)
}) {}

/** `PASSKEY_MAX_PASSKEYS_PER_USER`, 10 by default. */
export const defaultMaxPerUser = 10

/** Whether a user holding `count` passkeys may register another (`too_many_passkeys` if not). */
export const mayRegister = (count: number, maxPerUser: number): boolean => count < maxPerUser

/** The name of a new passkey whose authenticator is not in the known list (Supabase Auth's). */
export const defaultFriendlyName = "Passkey"

/** Longest name `PATCH /passkeys/{id}` accepts. */
export const maxFriendlyNameLength = 120

export type NameProblem = "missing" | "too_long"

/**
 * The rename rule: a name is required and at most 120 characters (Supabase Auth counts bytes
 * with Go's `len`; UTF-8 bytes here too, so the same names pass).
 */
export const checkFriendlyName = (name: string): Option.Option<NameProblem> => {
  if (name === "") return Option.some("missing")
  return new TextEncoder().encode(name).length > maxFriendlyNameLength
    ? Option.some("too_long")
    : Option.none()
}

/**
 * The signature counter rule (WebAuthn §6.1.1): an authenticator with a counter must present a
 * larger value each time; a value not above the stored one means a cloned authenticator or a
 * replayed assertion, and is refused. Authenticators without a counter always send 0, and 0
 * against a stored 0 passes. Supabase Auth only notes the clone and lets it through.
 */
export const signCountAccepted = (stored: number, presented: number): boolean =>
  (stored === 0 && presented === 0) || presented > stored

/** The passkey after an accepted sign-in at `now` with the presented counter. */
export const used = (passkey: Passkey, signCount: number, now: Date): Passkey =>
  new Passkey({ ...passkey, signCount, lastUsedAt: Option.some(now), updatedAt: now }, true)

/** Supabase Auth's `webauthn_challenges`: which flow a passkey challenge belongs to. */
export const ChallengePurpose = Schema.Literal("signup", "registration", "authentication")
export type ChallengePurpose = typeof ChallengePurpose.Type

export const PasskeyChallengeId = Schema.UUID.pipe(Schema.brand("PasskeyChallengeId"))
export type PasskeyChallengeId = typeof PasskeyChallengeId.Type

/**
 * A passkey challenge: for registration it belongs to the signed-in user; for sign-in to nobody
 * yet (the assertion's user handle will say who). It is consumed by the verify that presents it,
 * right or wrong, in one atomic step.
 */
export class PasskeyChallenge extends Schema.Class<PasskeyChallenge>("PasskeyChallenge")({
  id: PasskeyChallengeId,
  userId: Schema.OptionFromNullOr(UserId),
  purpose: ChallengePurpose,
  ceremony: WebAuthnCeremony,
  createdAt: Timestamp,
  expiresAt: Timestamp
}) {}

/** `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`, five minutes by default. */
export const defaultChallengeLifetime = Duration.minutes(5)

export const expiresAt = (createdAt: Date, lifetime: Duration.Duration): Date =>
  Time.plus(createdAt, lifetime)

/** How a presented passkey challenge stands once it has been taken out of the store. */
export type Standing = Data.TaggedEnum<{
  Usable: {}
  /** None with that id, purpose and user, or already consumed (`webauthn_challenge_not_found`). */
  NotFound: {}
  /** Past `expiresAt` (`webauthn_challenge_expired`). */
  Expired: {}
}>
export const Standing = Data.taggedEnum<Standing>()

/**
 * The consume rule: the challenge must have the expected purpose and belong to the expected user
 * (none for a sign-in), and not be past its expiry at `now` (usable at the instant itself).
 */
export const standing = (
  challenge: Option.Option<PasskeyChallenge>,
  purpose: ChallengePurpose,
  userId: Option.Option<UserId>,
  now: Date
): Standing =>
  Option.match(challenge, {
    onNone: () => Standing.NotFound(),
    onSome: (found) => {
      const sameUser = Option.match(userId, {
        onNone: () => Option.isNone(found.userId),
        onSome: (id) => Option.contains(found.userId, id)
      })
      if (found.purpose !== purpose || !sameUser) return Standing.NotFound()
      return now.getTime() > found.expiresAt.getTime() ? Standing.Expired() : Standing.Usable()
    }
  })
