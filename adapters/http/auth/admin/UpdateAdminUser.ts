import * as Effect from "effect/Effect"
import type { AdminUserRequest } from "../../../../application/auth/admin/AdminUserRequest.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import * as AdminUserBody from "./AdminUserBody.js"

/**
 * The `{user_id}` of the path (a UUID, else 404 `validation_failed`), then the body: a bad id is
 * answered before the body is read.
 */
export const input = (request: HttpRequest) =>
  Effect.flatMap(FindUser.parseId(request.params.user_id ?? ""), (id) =>
    Effect.map(AdminUserBody.decode(request), (body) => ({ id, body }))
  )

/**
 * PUT /admin/users/{user_id} — supabase-js `admin.updateUserById` (Supabase Auth's
 * `adminUserUpdate`, `api/admin.go`), for an administrator's bearer.
 */
export const handle = (input: { readonly id: UserId; readonly body: AdminUserRequest }) =>
  Effect.map(updateUser(input.id, input.body), (updated) =>
    HttpMessage.json(AuthJson.user(updated.user, updated.identities, updated.factors))
  )
