import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Factor from "../../domain/auth/Factor.js"
import * as Passkey from "../../domain/auth/Passkey.js"
import type { UserId } from "../../domain/Ids.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { sessionAal } from "./FactorInput.js"
import { MfaSettings } from "./MfaSettings.js"
import { FactorStore } from "./ports/FactorStore.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import type { KnownCredential } from "./ports/WebAuthnCeremonies.js"

/**
 * The passkey settings, when `PASSKEY_ENABLED` is on; else 404 `passkey_disabled`, as Supabase
 * Auth's `requirePasskeyEnabled` answers every `/passkeys` route.
 */
export const requirePasskeys = Effect.flatMap(MfaSettings, (mfa) =>
  mfa.passkeys.enabled ? Effect.succeed(mfa.passkeys) : Effect.fail(new AuthError.PasskeysDisabled())
)

/**
 * Supabase Auth's `requirePasskeyManagementAAL`: a user with a verified factor registers and
 * deletes passkeys only from an aal2 session (403 `insufficient_aal`).
 */
export const requireManagementAal = (signedIn: SignedIn) =>
  Effect.gen(function* () {
    if (sessionAal(signedIn) === "aal2") return
    const factors = yield* Effect.flatMap(FactorStore, (store) => store.list(signedIn.user.id))
    if (factors.some(Factor.isVerified))
      return yield* new AuthError.Aal2Required({ action: "manage_passkeys" })
  })

const isPasskeyId = Schema.is(Passkey.PasskeyId)
const isChallengeId = Schema.is(Passkey.PasskeyChallengeId)

/** The `{passkey_id}` of a path: not a UUID is the same 404 as a passkey not the user's. */
export const parsePasskeyId = (raw: string): Effect.Effect<Passkey.PasskeyId, AuthError.PasskeyNotFound> =>
  isPasskeyId(raw) ? Effect.succeed(raw) : Effect.fail(new AuthError.PasskeyNotFound())

/** What a passkey verify posts: `{challenge_id, credential}`, `credential` any JSON, absent as none. */
export interface VerifyRequest {
  readonly challengeId: string
  readonly credential: Option.Option<unknown>
}

/**
 * The request's challenge id and credential, checked in Supabase Auth's order: the id present,
 * the credential present, the id a UUID (all 400 `validation_failed`).
 */
export const readVerifyRequest = (request: VerifyRequest) =>
  Effect.gen(function* () {
    if (request.challengeId === "")
      return yield* new AuthError.PasskeyVerifyInvalid({ problem: "challenge_id_missing" })
    if (Option.isNone(request.credential)) {
      return yield* new AuthError.PasskeyVerifyInvalid({ problem: "credential_missing" })
    }
    if (!isChallengeId(request.challengeId)) {
      return yield* new AuthError.PasskeyVerifyInvalid({ problem: "challenge_id_not_uuid" })
    }
    return { challengeId: request.challengeId, credential: request.credential.value }
  })

/**
 * Spends the challenge (right or wrong, the verify that presents it uses it up, as Supabase Auth's
 * `ConsumeWebAuthnChallengeByID` deletes it first) and says whether it was usable: none with that
 * id, purpose and user → `webauthn_challenge_not_found`; past its expiry →
 * `webauthn_challenge_expired`.
 */
export const spendChallenge = (
  challengeId: Passkey.PasskeyChallengeId,
  purpose: Passkey.ChallengePurpose,
  userId: Option.Option<UserId>
) =>
  Effect.gen(function* () {
    const taken = yield* Effect.flatMap(PasskeyStore, (store) =>
      store.takeChallenge(challengeId, purpose, userId)
    )
    const now = new Date(yield* Clock.currentTimeMillis)
    const standing = Passkey.standing(taken, purpose, userId, now)
    if (standing._tag === "NotFound" || Option.isNone(taken))
      return yield* new AuthError.WebAuthnChallengeNotFound()
    if (standing._tag === "Expired") return yield* new AuthError.WebAuthnChallengeExpired()
    return taken.value
  })

/** A stored passkey as a credential the authenticator must not register again, or may assert. */
export const knownCredential = (passkey: Passkey.Passkey): KnownCredential => ({
  id: passkey.credentialId,
  transports: passkey.transports
})
