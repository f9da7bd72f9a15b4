import * as Effect from "effect/Effect"
import type { AdminUserRequest } from "../../../../application/auth/admin/AdminUserRequest.js"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"

/**
 * POST /admin/users — supabase-js `admin.createUser` (Supabase Auth's `adminUserCreate`,
 * `api/admin.go`), for an administrator's bearer; the body is AdminUserBody.ts's.
 */
export const handle = (body: AdminUserRequest) =>
  Effect.map(createUser(body), (created) => HttpMessage.json(AuthJson.user(created.user, created.identities)))
