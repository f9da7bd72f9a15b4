import * as Effect from "effect/Effect"
import { listUserPasskeys } from "../../../../application/auth/admin/ListUserPasskeys.js"
import type { UserId } from "../../../../domain/Ids.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as PasskeyJson from "../PasskeyJson.js"

/**
 * GET /admin/users/{user_id}/passkeys — supabase-js `admin.passkey.list` (Supabase Auth's
 * `AdminPasskeyList`): the items, `[]` when none. The input is GetAdminUser.ts's.
 */
export const handle = (userId: UserId) =>
  Effect.map(listUserPasskeys(userId), (passkeys) => HttpMessage.json(passkeys.map(PasskeyJson.item)))
