import * as Schema from "effect/Schema"

/**
 * The error vocabulary of OAuth 2.x: RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2,
 * RFC 7009 §2.2.1. Use cases fail with these; adapters/http/oauth maps each code to a status
 * and the `{error, error_description}` body.
 */
export const OAuthErrorCode = Schema.Literal(
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "unsupported_token_type",
  "invalid_scope",
  "invalid_target",
  "access_denied",
  "server_error",
  "temporarily_unavailable",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "slow_down"
)
export type OAuthErrorCode = typeof OAuthErrorCode.Type

export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", {
  code: OAuthErrorCode,
  description: Schema.String,
  /** For `slow_down` (rate limited): seconds until a retry may succeed. */
  retryAfterSeconds: Schema.optional(Schema.Number)
}) {}

export const invalidRequest = (description: string) =>
  new OAuthError({ code: "invalid_request", description })
export const invalidClient = (description: string) => new OAuthError({ code: "invalid_client", description })
export const invalidGrant = (description: string) => new OAuthError({ code: "invalid_grant", description })
