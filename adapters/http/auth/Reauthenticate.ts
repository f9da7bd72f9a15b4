import * as Effect from "effect/Effect"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { reauthenticate } from "../../../application/auth/Reauthenticate.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"

/** GET /reauthenticate — a nonce mailed to the signed-in user (supabase-js `reauthenticate`). */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    yield* reauthenticate(yield* Authenticate.user(yield* Bearer.token(request)))
    return HttpMessage.json({})
  }).pipe(ErrorResponse.answering(request))
