import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Endpoint from "../Endpoint.js"
import { field } from "../Endpoint.js"

const Body = Schema.Struct({ should_soft_delete: field(Schema.Boolean) })
const decodeBody = Endpoint.body(Body)

/**
 * The `{user_id}` of the path (a UUID, else 404 `validation_failed`), then
 * `{should_soft_delete}`: a bad id is answered before the body is read.
 */
export const input = (request: HttpRequest) =>
  Effect.flatMap(FindUser.parseId(request.params.user_id ?? ""), (id) =>
    Effect.map(decodeBody(request), (body) => ({ id, soft: body.should_soft_delete ?? false }))
  )

/**
 * DELETE /admin/users/{user_id} — supabase-js `admin.deleteUser(id, shouldSoftDelete)`
 * (Supabase Auth's `adminUserDelete`, `api/admin.go`), for an administrator's bearer.
 */
export const handle = (input: { readonly id: UserId; readonly soft: boolean }) =>
  Effect.as(deleteUser(input.id, input.soft), HttpMessage.json({}))
