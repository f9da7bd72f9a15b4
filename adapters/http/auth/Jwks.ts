import * as Effect from "effect/Effect"
import { AccessTokens } from "../../../application/auth/ports/AccessTokens.js"
import * as HttpMessage from "../HttpMessage.js"

/**
 * GET /.well-known/jwks.json — the public keys that verify access tokens (supabase-js
 * `getClaims` caches them for ten minutes). Clients may cache it as long: a key is published
 * before it signs and stays published until its last token expires.
 */
export const handle = () =>
  Effect.map(
    Effect.flatMap(AccessTokens, (tokens) => tokens.jwks),
    (jwks) => HttpMessage.json({ keys: jwks.keys }, 200, { "cache-control": "public, max-age=600" })
  )
