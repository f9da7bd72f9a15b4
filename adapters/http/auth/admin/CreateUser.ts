import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as UserJson from "../UserJson.js"
import * as AdminUserBody from "./AdminUserBody.js"

/** POST /admin/users — supabase-js `admin.createUser`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const created = yield* createUser(yield* AdminUserBody.decode(request))
    return HttpMessage.json(UserJson.encode(created.user, created.identities))
  }).pipe(ErrorResponse.answering(request))
