import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { unlinkIdentity } from "../../../application/auth/UnlinkIdentity.js"
import * as HttpMessage from "../HttpMessage.js"

/** DELETE /user/identities/{identity_id} (supabase-js `unlinkIdentity`): 200 `{}`. */
export const handle = (identityId: string, signedIn: SignedIn) =>
  Effect.as(unlinkIdentity(signedIn, identityId), HttpMessage.json({}))
