import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { getUser } from "../../../application/auth/GetUser.js"
import * as HttpMessage from "../HttpMessage.js"
import * as AuthJson from "./AuthJson.js"

/** GET /user — the signed-in user (supabase-js `getUser`; Supabase Auth's `UserGet`). */
export const handle = (_: undefined, signedIn: SignedIn) =>
  Effect.map(getUser(signedIn), (found) => HttpMessage.json(AuthJson.user(found.user, found.identities)))
