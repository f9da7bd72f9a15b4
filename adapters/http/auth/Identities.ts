import * as Effect from "effect/Effect"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { authorize } from "../../../application/auth/ExternalAuthorize.js"
import { ensureManualLinking, unlinkIdentity } from "../../../application/auth/UnlinkIdentity.js"
import type { HttpRequest } from "../HttpMessage.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Authorize from "./Authorize.js"
import * as Bearer from "./Bearer.js"
import * as ErrorResponse from "./ErrorResponse.js"

/**
 * GET /user/identities/authorize (supabase-js `linkIdentity`, signed in): the sign-in at the
 * provider whose identity is to join the user, as /authorize starts it. supabase-js asks for
 * `skip_http_redirect=true` and gets `{ url }`; otherwise 302 to the provider.
 */
export const handleLink = (request: HttpRequest) =>
  Effect.gen(function* () {
    const signedIn = yield* Authenticate.user(yield* Bearer.token(request))
    yield* ensureManualLinking
    const query = new URLSearchParams(request.query)
    const location = yield* authorize({ ...Authorize.requestOf(query), linkingUserId: signedIn.user.id })
    return query.get("skip_http_redirect") === "true"
      ? HttpMessage.json({ url: location.toString() })
      : HttpMessage.empty(302, { location: location.toString(), "cache-control": "no-store" })
  }).pipe(ErrorResponse.answering(request))

/** DELETE /user/identities/{identity_id} (supabase-js `unlinkIdentity`): 200 `{}`. */
export const handleUnlink = (request: HttpRequest) =>
  Effect.gen(function* () {
    const signedIn = yield* Authenticate.user(yield* Bearer.token(request))
    yield* unlinkIdentity(signedIn, request.params.identity_id ?? "")
    return HttpMessage.json({})
  }).pipe(ErrorResponse.answering(request))
