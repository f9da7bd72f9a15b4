import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { startPasskeyRegistration } from "../../../application/auth/StartPasskeyRegistration.js"
import * as HttpMessage from "../HttpMessage.js"
import * as PasskeyJson from "./PasskeyJson.js"

/**
 * POST /passkeys/registration/options — supabase-js `passkey.startRegistration` (Supabase Auth's
 * `PasskeyRegistrationOptions`): `{challenge_id, options, expires_at}`, the options in the JSON
 * form auth-js's `deserializeCredentialCreationOptions` reads. The body (`{}`) is not read.
 */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(startPasskeyRegistration(signedIn), (started) => HttpMessage.json(PasskeyJson.started(started)))
