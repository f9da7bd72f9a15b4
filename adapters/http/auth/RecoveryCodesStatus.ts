import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { recoveryCodesStatus } from "../../../application/auth/RecoveryCodesStatus.js"
import * as HttpMessage from "../HttpMessage.js"

/**
 * GET /factors/recovery-codes — auth-js `mfa.recoveryCodes.getStatus`: `{id, type, total,
 * remaining}`, never the codes.
 */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(recoveryCodesStatus(signedIn), (found) =>
    HttpMessage.json({
      id: found.factor.id,
      type: "recovery_code",
      total: found.status.total,
      remaining: found.status.remaining
    })
  )
