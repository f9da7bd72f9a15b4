import * as Effect from "effect/Effect"
import type { VerifyRequest } from "../../../application/auth/PasskeyInput.js"
import { passkeySignIn } from "../../../application/auth/PasskeySignIn.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"
import * as ClientInfo from "./ClientInfo.js"

export { input } from "./PasskeyVerifyBody.js"

/**
 * POST /passkeys/authentication/verify — supabase-js `signInWithPasskey`'s last call (Supabase
 * Auth's `PasskeyAuthenticationVerify`): a new session as `/token` answers one, which auth-js
 * saves and announces (`SIGNED_IN`).
 */
export const handle = (read: VerifyRequest, _: undefined, request: HttpRequest) =>
  Effect.map(passkeySignIn({ ...read, client: ClientInfo.of(request) }), (grant) =>
    HttpMessage.json(AuthJson.session(grant))
  )
