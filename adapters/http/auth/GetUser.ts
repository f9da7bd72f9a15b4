import * as Effect from "effect/Effect"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { identitiesOf } from "../../../application/auth/GetUser.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as UserJson from "./UserJson.js"

/** GET /user — the signed-in user (supabase-js `getUser`). */
export const handle = (request: HttpRequest) =>
  Effect.gen(function* () {
    const signedIn = yield* Authenticate.user(yield* Bearer.token(request))
    return HttpMessage.json(UserJson.encode(signedIn.user, yield* identitiesOf(signedIn)))
  }).pipe(ErrorResponse.answering(request))
