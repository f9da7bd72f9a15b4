import * as Effect from "effect/Effect"
import type { SignedIn } from "../../../application/auth/Authenticate.js"
import { authorize } from "../../../application/auth/ExternalAuthorize.js"
import * as HttpMessage from "../HttpMessage.js"
import * as Authorize from "./Authorize.js"

/**
 * GET /user/identities/authorize (supabase-js `linkIdentity`, signed in, manual linking on):
 * the sign-in at the provider whose identity is to join the user, as /authorize starts it.
 * supabase-js asks for `skip_http_redirect=true` and gets `{ url }`; otherwise 302 to the
 * provider.
 */
export const handle = (query: URLSearchParams, signedIn: SignedIn) =>
  Effect.map(authorize({ ...Authorize.requestOf(query), linkingUserId: signedIn.user.id }), (location) =>
    query.get("skip_http_redirect") === "true"
      ? HttpMessage.json({ url: location.toString() })
      : HttpMessage.empty(302, { location: location.toString(), "cache-control": "no-store" })
  )
