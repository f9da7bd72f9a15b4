import * as Effect from "effect/Effect"
import { startPasskeySignIn } from "../../../application/auth/StartPasskeySignIn.js"
import * as HttpMessage from "../HttpMessage.js"
import * as PasskeyJson from "./PasskeyJson.js"

/**
 * POST /passkeys/authentication/options — supabase-js `signInWithPasskey`'s first call (Supabase
 * Auth's `PasskeyAuthenticationOptions`): `{challenge_id, options, expires_at}` for a
 * discoverable sign-in. The body carries only the captcha token, which the pipeline reads.
 */
export const handle = () =>
  Effect.map(startPasskeySignIn(), (started) => HttpMessage.json(PasskeyJson.started(started)))
