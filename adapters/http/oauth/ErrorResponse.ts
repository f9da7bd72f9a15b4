import type { OAuthError, OAuthErrorCode } from "../../../application/oauth/OAuthError.js"
import { type ApiResponse, json } from "./ApiMessage.js"

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

export const fromError = (error: OAuthError): ApiResponse => {
  const headers: Record<string, string> = {}
  // RFC 6749 §5.2: a 401 for client authentication names the scheme the client should use.
  if (error.code === "invalid_client") headers["www-authenticate"] = 'Basic realm="latchkey", charset="UTF-8"'
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds)
  return json({ error: error.code, error_description: error.description }, statusOf[error.code], headers)
}
