import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Passkey from "../../domain/auth/Passkey.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { requireNotAnonymous } from "./FactorInput.js"
import { knownCredential, requireManagementAal, requirePasskeys } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { type CreationOptionsJSON, WebAuthnCeremonies } from "./ports/WebAuthnCeremonies.js"
import { credentialUserOf, relyingParty } from "./RelyingParty.js"

/** Options for the browser's `navigator.credentials.create`, and the challenge to answer them with. */
export interface RegistrationStarted {
  readonly challengeId: Passkey.PasskeyChallengeId
  readonly options: CreationOptionsJSON
  readonly expiresAt: Date
}

/**
 * POST /passkeys/registration/options (supabase-js `passkey.startRegistration`, Supabase Auth's
 * `PasskeyRegistrationOptions`): creation options for a discoverable credential (resident key
 * required, user verification preferred, attestation `none`) whose user handle is the user id,
 * excluding the user's passkeys, and a registration challenge of this user kept for
 * `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`. Refused to anonymous users, below aal2 to a user with a
 * verified factor, and at `PASSKEY_MAX_PASSKEYS_PER_USER`.
 */
export const startPasskeyRegistration = Telemetry.fn("StartPasskeyRegistration.startPasskeyRegistration")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      const settings = yield* requirePasskeys
      yield* requireNotAnonymous(signedIn)
      yield* requireManagementAal(signedIn)
      const user = signedIn.user
      const store = yield* PasskeyStore
      const passkeys = yield* store.list(user.id)
      if (!Passkey.mayRegister(passkeys.length, settings.maxPerUser))
        return yield* new AuthError.TooManyPasskeys()
      const party = yield* relyingParty
      const started = yield* Effect.flatMap(WebAuthnCeremonies, (ceremonies) =>
        ceremonies.registrationOptions({
          relyingParty: { id: party.id, name: party.displayName },
          user: credentialUserOf(user),
          excludeCredentials: passkeys.map(knownCredential),
          residentKey: "required",
          userVerification: "preferred",
          timeout: settings.challengeLifetime
        })
      )
      const now = new Date(yield* Clock.currentTimeMillis)
      const challenge = new Passkey.PasskeyChallenge({
        id: Passkey.PasskeyChallengeId.make(yield* Effect.flatMap(Secrets, (secrets) => secrets.uuid)),
        userId: Option.some(user.id),
        purpose: "registration",
        ceremony: started.ceremony,
        createdAt: now,
        expiresAt: Passkey.expiresAt(now, settings.challengeLifetime)
      })
      yield* store.createChallenge(challenge)
      return {
        challengeId: challenge.id,
        options: started.options,
        expiresAt: challenge.expiresAt
      } satisfies RegistrationStarted
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
