import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { deleteRecoveryCodes } from "../../../application/auth/DeleteRecoveryCodes.js"
import * as HttpMessage from "../HttpMessage.js"

/** DELETE /factors/recovery-codes — auth-js `mfa.recoveryCodes.unenroll`: `{id}`, as an unenrolment. */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(deleteRecoveryCodes(signedIn), (removed) => HttpMessage.json({ id: removed.id }))
