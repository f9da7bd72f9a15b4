import * as Effect from "effect/Effect"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"

/** The `{user_id}` of the path: a UUID, else 404 `validation_failed`. */
export const input = (request: HttpRequest) => FindUser.parseId(request.params.user_id ?? "")

/**
 * GET /admin/users/{user_id} — supabase-js `admin.getUserById` (Supabase Auth's `adminUserGet`,
 * `api/admin.go`), for an administrator's bearer.
 */
export const handle = (id: UserId) =>
  Effect.map(FindUser.findUser(id), (found) =>
    HttpMessage.json(AuthJson.user(found.user, found.identities, found.factors))
  )
