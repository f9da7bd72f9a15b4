import * as Effect from "effect/Effect"
import { type AuthorizeRequest, authorize } from "../../../application/auth/ExternalAuthorize.js"
import * as HttpMessage from "../HttpMessage.js"

/** The parameters of /authorize that are ours, never passed on to the provider. */
const own = new Set([
  "provider",
  "scopes",
  "redirect_to",
  "code_challenge",
  "code_challenge_method",
  "skip_http_redirect"
])

/** A sign-in request as /authorize and /user/identities/authorize read it from their query. */
export const requestOf = (query: URLSearchParams): AuthorizeRequest => {
  const rest = new Map<string, string>()
  for (const [key, value] of query) if (!own.has(key) && !rest.has(key)) rest.set(key, value)
  return {
    provider: query.get("provider") ?? "",
    scopes: query.get("scopes") ?? "",
    redirectTo: query.get("redirect_to") ?? "",
    codeChallenge: query.get("code_challenge") ?? "",
    codeChallengeMethod: query.get("code_challenge_method") ?? "",
    query: rest
  }
}

/**
 * GET /authorize?provider=…&scopes=…&redirect_to=… — supabase-js `signInWithOAuth`: 302 to the
 * provider's sign-in page. An unknown or disabled provider is answered here, as JSON, with no
 * redirect, as Supabase Auth does.
 */
export const handle = (query: URLSearchParams) =>
  Effect.map(authorize(requestOf(query)), (location) =>
    HttpMessage.empty(302, { location: location.toString(), "cache-control": "no-store" })
  )
