import * as Effect from "effect/Effect"
import * as AuthError from "../../../application/auth/AuthError.js"
import { type HttpRequest, header } from "../HttpMessage.js"

/** Supabase Auth's reading of the header: `Bearer` or `bearer`, one space, a token without spaces. */
const bearer = /^[Bb]earer (\S+)$/

/** The bearer token of a request to an endpoint that needs one; else 401 `no_authorization`. */
export const token = (
  request: Pick<HttpRequest, "headers">
): Effect.Effect<string, AuthError.NoBearerToken> => {
  const match = bearer.exec(header(request, "authorization") ?? "")
  return match?.[1] === undefined ? Effect.fail(new AuthError.NoBearerToken()) : Effect.succeed(match[1])
}
