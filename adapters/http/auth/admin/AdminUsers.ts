import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { AdminUserRequest } from "../../../../application/auth/admin/AdminUserRequest.js"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import * as Endpoint from "../Endpoint.js"
import { field } from "../Endpoint.js"
import * as AdminUserBody from "./AdminUserBody.js"

/*
 * The admin API's users, Supabase Auth's `api/admin.go` (`adminUserGet`,
 * `adminUserCreate`, `adminUserUpdate`, `adminUserDelete`; the list, with its paging and
 * sorting rules, is ListUsers.ts): every endpoint for an administrator's bearer (Routes.ts),
 * the user of a path named by its `{user_id}`.
 */

/** The `{user_id}` of the path: a UUID, else 404 `validation_failed`. */
export const userId = (request: HttpRequest) => FindUser.parseId(request.params.user_id ?? "")

/** GET /admin/users/{user_id} — supabase-js `admin.getUserById`. */
export const get = (id: UserId) =>
  Effect.map(FindUser.findUser(id), (found) => HttpMessage.json(AuthJson.user(found.user, found.identities)))

/** POST /admin/users — supabase-js `admin.createUser`. */
export const create = (body: AdminUserRequest) =>
  Effect.map(createUser(body), (created) => HttpMessage.json(AuthJson.user(created.user, created.identities)))

/** The user of the path, then the body: a bad id is answered before the body is read. */
export const idAndBody = (request: HttpRequest) =>
  Effect.flatMap(userId(request), (id) => Effect.map(AdminUserBody.decode(request), (body) => ({ id, body })))

/** PUT /admin/users/{user_id} — supabase-js `admin.updateUserById`. */
export const update = (input: { readonly id: UserId; readonly body: AdminUserRequest }) =>
  Effect.map(updateUser(input.id, input.body), (updated) =>
    HttpMessage.json(AuthJson.user(updated.user, updated.identities))
  )

const DeleteBody = Schema.Struct({ should_soft_delete: field(Schema.Boolean) })
const decodeDelete = Endpoint.body(DeleteBody)

/** The user of the path, then `{should_soft_delete}`. */
export const idAndDeleteBody = (request: HttpRequest) =>
  Effect.flatMap(userId(request), (id) =>
    Effect.map(decodeDelete(request), (body) => ({ id, soft: body.should_soft_delete ?? false }))
  )

/** DELETE /admin/users/{user_id} — supabase-js `admin.deleteUser(id, shouldSoftDelete)`. */
export const remove = (input: { readonly id: UserId; readonly soft: boolean }) =>
  Effect.as(deleteUser(input.id, input.soft), HttpMessage.json({}))
