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

export type Refusal = BadJson | UnsupportedGrantType | Web3Disabled | SamlDisabled | OverRequestRateLimit
