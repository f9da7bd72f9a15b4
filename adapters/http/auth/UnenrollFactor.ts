import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { unenrollFactor } from "../../../application/auth/UnenrollFactor.js"
import * as HttpMessage from "../HttpMessage.js"

/** DELETE /factors/{factor_id} — supabase-js `mfa.unenroll` (Supabase Auth's `UnenrollFactor`): 200 `{id}`. */
export const handle = (factorId: string, signedIn: SignedIn) =>
  Effect.map(unenrollFactor(signedIn, factorId), (removed) => HttpMessage.json({ id: removed.id }))
