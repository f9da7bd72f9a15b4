import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { finishPasskeyRegistration } from "../../../application/auth/FinishPasskeyRegistration.js"
import type { VerifyRequest } from "../../../application/auth/PasskeyInput.js"
import * as HttpMessage from "../HttpMessage.js"

export { input } from "./PasskeyVerifyBody.js"

/**
 * POST /passkeys/registration/verify — supabase-js `passkey.verifyRegistration` (Supabase Auth's
 * `PasskeyRegistrationVerify`): the new passkey as `{id, friendly_name, created_at}`.
 */
export const handle = (request: VerifyRequest, signedIn: SignedIn) =>
  Effect.map(finishPasskeyRegistration(signedIn, request), (passkey) =>
    HttpMessage.json({
      id: passkey.id,
      ...(passkey.friendlyName === "" ? {} : { friendly_name: passkey.friendlyName }),
      created_at: passkey.createdAt.toISOString()
    })
  )
