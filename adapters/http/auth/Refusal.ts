import * as Schema from "effect/Schema"

/**
 * Why the HTTP driver refused a request before any use case ran: the same kind of reason as
 * application/auth/AuthError.ts's, answered by the same table (ErrorResponse.ts).
 */

/** `detail` says what is wrong with the body; Supabase Auth puts its JSON decoder's error there. */
export class BadJson extends Schema.TaggedError<BadJson>()("BadJson", { detail: Schema.String }) {}
/** POST /token with a `grant_type` this service does not know. */
export class UnsupportedGrantType extends Schema.TaggedError<UnsupportedGrantType>()(
  "UnsupportedGrantType",
  {}
) {}
/** `grant_type=web3`: the service has no Web3 sign-in. */
export class Web3Disabled extends Schema.TaggedError<Web3Disabled>()("Web3Disabled", {}) {}
/** Every /sso path: the service has no SAML. */
export class SamlDisabled extends Schema.TaggedError<SamlDisabled>()("SamlDisabled", {}) {}
/** A client address over an endpoint's `RATE_LIMIT_*`. */
export class OverRequestRateLimit extends Schema.TaggedError<OverRequestRateLimit>()(
  "OverRequestRateLimit",
  {}
) {}

/**
 * POST /otp naming both an email and a phone, a `channel` with an email, or neither contact:
 * the driver picks the use case (MagicLink or PhoneOtp), so it checks which one is meant.
 */
export class OtpRequestInvalid extends Schema.TaggedError<OtpRequestInvalid>()("OtpRequestInvalid", {
  problem: Schema.Literal("email_and_phone", "channel_with_email", "no_contact")
}) {}
/** POST /logout with a `scope` other than `global`, `local` or `others`, as sent. */
export class LogoutScopeUnsupported extends Schema.TaggedError<LogoutScopeUnsupported>()(
  "LogoutScopeUnsupported",
  { scope: Schema.String }
) {}
/**
 * GET /admin/users with a `page` or `per_page` that is no unsigned decimal (`value`, as sent), or
 * one of 2^64 or more (`outOfRange`), as Go's `strconv.ParseUint` refuses them.
 */
export class PaginationInvalid extends Schema.TaggedError<PaginationInvalid>()("PaginationInvalid", {
  value: Schema.String,
  outOfRange: Schema.Boolean
}) {}
/** GET /admin/users with a `sort` whose field is not `created_at` or whose direction is unknown. */
export class SortInvalid extends Schema.TaggedError<SortInvalid>()("SortInvalid", {
  part: Schema.Literal("field", "direction"),
  value: Schema.String
}) {}

export type Refusal =
  | BadJson
  | UnsupportedGrantType
  | Web3Disabled
  | SamlDisabled
  | OverRequestRateLimit
  | OtpRequestInvalid
  | LogoutScopeUnsupported
  | PaginationInvalid
  | SortInvalid
