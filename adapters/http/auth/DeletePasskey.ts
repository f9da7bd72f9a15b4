import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { deletePasskey } from "../../../application/auth/DeletePasskey.js"
import * as HttpMessage from "../HttpMessage.js"

/** DELETE /passkeys/{passkey_id} — supabase-js `passkey.delete` (Supabase Auth's `PasskeyDelete`): 204. */
export const handle = (passkeyId: string, signedIn: SignedIn) =>
  Effect.map(deletePasskey(signedIn, passkeyId), () => HttpMessage.empty(204))
