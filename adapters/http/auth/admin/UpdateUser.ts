import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as UserJson from "../UserJson.js"
import * as AdminUserBody from "./AdminUserBody.js"

/** PUT /admin/users/{user_id} — supabase-js `admin.updateUserById`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const id = yield* FindUser.parseId(request.params.user_id ?? "")
    const updated = yield* updateUser(id, yield* AdminUserBody.decode(request))
    return HttpMessage.json(UserJson.encode(updated.user, updated.identities))
  }).pipe(ErrorResponse.answering(request))
