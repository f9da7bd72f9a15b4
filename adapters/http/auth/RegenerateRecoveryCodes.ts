import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { regenerateRecoveryCodes } from "../../../application/auth/RegenerateRecoveryCodes.js"
import { issued } from "./CreateRecoveryCodes.js"

/**
 * POST /factors/recovery-codes/regenerate — auth-js `mfa.recoveryCodes.regenerate`: the new set,
 * answered as a creation is.
 */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(regenerateRecoveryCodes(signedIn), issued)
