import * as Effect from "effect/Effect"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import { findUser } from "./FindUser.js"

/**
 * GET /admin/users/{user_id}/factors (supabase-js `admin.mfa.listFactors`): the user's factors,
 * oldest first, `[]` when none; an unknown user is `user_not_found` as Supabase Auth's
 * `loadUser` answers. The user's read brings them.
 */
export const listFactors = Telemetry.fn("admin.ListFactors")((userId: UserId) =>
  Effect.map(findUser(userId), (found) => found.factors)
)
