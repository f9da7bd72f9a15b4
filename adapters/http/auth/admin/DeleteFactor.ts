import * as Effect from "effect/Effect"
import { deleteFactor } from "../../../../application/auth/admin/DeleteFactor.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"

/**
 * The `{user_id}` of the path (a UUID, else 404 `validation_failed`) and the raw `{factor_id}`,
 * read by the use case once the user is found, in Supabase Auth's order (`loadUser`, then
 * `loadFactor`).
 */
export const input = (request: HttpRequest) =>
  Effect.map(FindUser.parseId(request.params.user_id ?? ""), (userId) => ({
    userId,
    factorId: request.params.factor_id ?? ""
  }))

/**
 * DELETE /admin/users/{user_id}/factors/{factor_id} — supabase-js `admin.mfa.deleteFactor`
 * (Supabase Auth's `adminUserDeleteFactor`): the deleted factor.
 */
export const handle = (path: { readonly userId: UserId; readonly factorId: string }) =>
  Effect.map(deleteFactor(path.userId, path.factorId), (removed) =>
    HttpMessage.json(AuthJson.factor(removed))
  )
