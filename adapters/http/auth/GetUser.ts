import * as Effect from "effect/Effect"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { getUser } from "../../../application/auth/GetUser.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as UserJson from "./UserJson.js"

/** GET /user — the signed-in user (supabase-js `getUser`). */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const found = yield* getUser(yield* Authenticate.user(yield* Bearer.token(request)))
    return HttpMessage.json(UserJson.encode(found.user, found.identities))
  }).pipe(ErrorResponse.answering(request))
