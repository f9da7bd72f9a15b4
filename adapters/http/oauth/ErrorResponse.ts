import * as Effect from "effect/Effect"
import type { OAuthError, OAuthErrorCode } from "../../../application/oauth/OAuthError.js"
import type { HttpResponse } from "../HttpMessage.js"
import type { Problems } from "../Problems.js"
import { json } from "./Json.js"

/** RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 6585 §4: the status of each error code. */
const statusOf: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  server_error: 500,
  temporarily_unavailable: 503,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  slow_down: 429
}

const body = (error: OAuthErrorCode, description: string) => ({ error, error_description: description })

export const fromError = (error: OAuthError): HttpResponse => {
  const headers: Record<string, string> = {}
  // RFC 6749 §5.2: a 401 for client authentication names the scheme the client should use.
  if (error.code === "invalid_client") headers["www-authenticate"] = 'Basic realm="latchkey", charset="UTF-8"'
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds)
  return json(body(error.code, error.description), statusOf[error.code], headers)
}

/** An endpoint's OAuth errors, answered with their status and `{error, error_description}` body. */
export const answering = <R>(
  effect: Effect.Effect<HttpResponse, OAuthError, R>
): Effect.Effect<HttpResponse, never, R> =>
  Effect.catchTag(effect, "OAuthError", (error) => Effect.succeed(fromError(error)))

/** What the server answers on its own, in the same shape. */
export const problems: Problems = {
  notFound: json({ error: "not_found", error_description: "no such endpoint" }, 404),
  methodNotAllowed: json(body("invalid_request", "this endpoint does not answer to that method"), 405),
  badRequest: (description) => json(body("invalid_request", description), 400),
  unsupportedMediaType: (accepted) =>
    json(body("invalid_request", `the body must be ${accepted.join(" or ")}`), 400),
  tooLarge: (limit) => json(body("invalid_request", `the body exceeds ${limit} bytes`), 413),
  headersTooLarge: json(body("invalid_request", "the request line or headers are too large"), 431),
  unavailable: (requestId, retryAfter) =>
    json(
      body(
        "temporarily_unavailable",
        `the service is briefly unavailable; retry shortly (request id ${requestId})`
      ),
      503,
      { "retry-after": String(retryAfter) }
    ),
  internal: (requestId) => json(body("server_error", `internal error (request id ${requestId})`), 500)
}
