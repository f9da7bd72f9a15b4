import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { reauthenticate } from "../../../application/auth/Reauthenticate.js"
import * as HttpMessage from "../HttpMessage.js"

/** GET /reauthenticate — a nonce mailed to the signed-in user (supabase-js `reauthenticate`). */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.as(reauthenticate(signedIn), HttpMessage.json({}))
