import * as Effect from "effect/Effect"
import { deleteUserPasskey } from "../../../../application/auth/admin/DeleteUserPasskey.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"

/** The `{user_id}` of the path (a UUID, else 404) and the raw `{passkey_id}`, read once the user is found. */
export const input = (request: HttpRequest) =>
  Effect.map(FindUser.parseId(request.params.user_id ?? ""), (userId) => ({
    userId,
    passkeyId: request.params.passkey_id ?? ""
  }))

/**
 * DELETE /admin/users/{user_id}/passkeys/{passkey_id} — supabase-js `admin.passkey.delete`
 * (Supabase Auth's `AdminPasskeyDelete`): 204.
 */
export const handle = (path: { readonly userId: UserId; readonly passkeyId: string }) =>
  Effect.map(deleteUserPasskey(path.userId, path.passkeyId), () => HttpMessage.empty(204))
