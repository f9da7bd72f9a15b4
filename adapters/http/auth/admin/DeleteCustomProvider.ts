import * as Effect from "effect/Effect"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { deleteCustomProvider } from "../../../../application/auth/admin/DeleteCustomProvider.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as Bearer from "../Bearer.js"
import * as ErrorResponse from "../ErrorResponse.js"

/** DELETE /admin/custom-providers/{identifier} — supabase-js `admin.customProviders.deleteProvider`; 204. */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* Authenticate.admin(yield* Bearer.token(request))
    yield* deleteCustomProvider(request.params.identifier ?? "")
    return HttpMessage.empty(204)
  }).pipe(ErrorResponse.answering(request))
