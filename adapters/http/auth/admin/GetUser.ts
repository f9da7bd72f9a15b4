import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as UserJson from "../UserJson.js"

/** GET /admin/users/{user_id} — supabase-js `admin.getUserById`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const id = yield* FindUser.parseId(request.params.user_id ?? "")
    const found = yield* FindUser.findUser(id)
    return HttpMessage.json(UserJson.encode(found.user, found.identities))
  }).pipe(ErrorResponse.answering(request))
