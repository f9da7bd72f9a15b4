import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as JsonRequest from "../JsonRequest.js"
import { field } from "../JsonRequest.js"

const Body = Schema.Struct({ should_soft_delete: field(Schema.Boolean) })

/** DELETE /admin/users/{user_id} — supabase-js `admin.deleteUser(id, shouldSoftDelete)`. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    const id = yield* FindUser.parseId(request.params.user_id ?? "")
    const body = yield* JsonRequest.decode(Body)(request)
    yield* deleteUser(id, body.should_soft_delete ?? false)
    return HttpMessage.json({})
  }).pipe(ErrorResponse.answering(request))
