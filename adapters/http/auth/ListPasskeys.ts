import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { listPasskeys } from "../../../application/auth/ListPasskeys.js"
import * as HttpMessage from "../HttpMessage.js"
import * as PasskeyJson from "./PasskeyJson.js"

/** GET /passkeys — supabase-js `passkey.list` (Supabase Auth's `PasskeyList`): the items, `[]` when none. */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(listPasskeys(signedIn), (passkeys) => HttpMessage.json(passkeys.map(PasskeyJson.item)))
