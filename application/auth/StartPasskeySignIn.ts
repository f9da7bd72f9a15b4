import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Passkey from "../../domain/auth/Passkey.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { requirePasskeys } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"
import { type RequestOptionsJSON, WebAuthnCeremonies } from "./ports/WebAuthnCeremonies.js"
import { relyingParty } from "./RelyingParty.js"

/** Options for the browser's `navigator.credentials.get`, and the challenge to answer them with. */
export interface SignInStarted {
  readonly challengeId: Passkey.PasskeyChallengeId
  readonly options: RequestOptionsJSON
  readonly expiresAt: Date
}

/**
 * POST /passkeys/authentication/options (supabase-js `signInWithPasskey`'s first step, Supabase
 * Auth's `PasskeyAuthenticationOptions`): request options for a discoverable sign-in (no allowed
 * credentials: the authenticator offers the passkeys it holds for the relying party, and the
 * assertion's user handle will say whose), user verification preferred, and a sign-in challenge
 * of nobody yet. The captcha and `RATE_LIMIT_PASSKEY` are the endpoint's.
 */
export const startPasskeySignIn = Telemetry.fn("StartPasskeySignIn.startPasskeySignIn")(() =>
  Effect.gen(function* () {
    const settings = yield* requirePasskeys
    const party = yield* relyingParty
    const started = yield* Effect.flatMap(WebAuthnCeremonies, (ceremonies) =>
      ceremonies.authenticationOptions({
        relyingPartyId: party.id,
        allowCredentials: [],
        userVerification: "preferred",
        timeout: settings.challengeLifetime
      })
    )
    const now = new Date(yield* Clock.currentTimeMillis)
    const challenge = new Passkey.PasskeyChallenge({
      id: Passkey.PasskeyChallengeId.make(yield* Effect.flatMap(Secrets, (secrets) => secrets.uuid)),
      userId: Option.none(),
      purpose: "authentication",
      ceremony: started.ceremony,
      createdAt: now,
      expiresAt: Passkey.expiresAt(now, settings.challengeLifetime)
    })
    yield* Effect.flatMap(PasskeyStore, (store) => store.createChallenge(challenge))
    return {
      challengeId: challenge.id,
      options: started.options,
      expiresAt: challenge.expiresAt
    } satisfies SignInStarted
  })
)
