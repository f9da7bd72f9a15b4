import { HttpServerResponse } from "@effect/platform"
import type { OAuthError, OAuthErrorCode } from "../../../application/oauth/OAuthError.js"

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

/** Token responses and errors must never be cached (RFC 6749 §5.1). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" }

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...noStore, ...headers } })

export const fromError = (error: OAuthError) => {
  const headers: Record<string, string> = {}
  // RFC 6749 §5.2: a 401 for client authentication names the scheme the client should use.
  if (error.code === "invalid_client") headers["www-authenticate"] = 'Basic realm="latchkey", charset="UTF-8"'
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds)
  return json({ error: error.code, error_description: error.description }, statusOf[error.code], headers)
}

export const invalidRequest = (description: string) =>
  json({ error: "invalid_request", error_description: description }, 400)
