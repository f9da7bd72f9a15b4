import * as Effect from "effect/Effect"
import { listFactors } from "../../../../application/auth/admin/ListFactors.js"
import type { UserId } from "../../../../domain/Ids.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"

/**
 * GET /admin/users/{user_id}/factors — supabase-js `admin.mfa.listFactors` (Supabase Auth's
 * `adminUserGetFactors`): the factor array, `[]` when none. The input is GetAdminUser.ts's.
 */
export const handle = (userId: UserId) =>
  Effect.map(listFactors(userId), (factors) => HttpMessage.json(factors.map(AuthJson.factor)))
