import * as Schema from "effect/Schema"

/**
 * Why a guarded outbound call did not produce an answer. Every message names at most the
 * destination's host name, never its URL: a path or query may carry an account id or a
 * token, and user information in a URL is refused before anything else is looked at. `host`
 * is the host name alone, for logs and spans.
 */

/** The guard would not let the call go there: scheme, user information, host or address. */
export class DestinationRefused extends Schema.TaggedError<DestinationRefused>()("DestinationRefused", {
  host: Schema.String,
  message: Schema.String
}) {}

/** The host could not be resolved or connected to, TLS failed, or the connection broke. */
export class DestinationUnreachable extends Schema.TaggedError<DestinationUnreachable>()(
  "DestinationUnreachable",
  {
    host: Schema.String,
    /** Node's error code when it gave one (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`). */
    code: Schema.optional(Schema.String),
    message: Schema.String
  }
) {}

/** No complete answer within the call's time limit, redirects and body included. */
export class OutboundTimedOut extends Schema.TaggedError<OutboundTimedOut>()("OutboundTimedOut", {
  host: Schema.String,
  millis: Schema.Number,
  message: Schema.String
}) {}

/** The answer's body, announced or as it streamed in, exceeds the call's size limit. */
export class AnswerTooLarge extends Schema.TaggedError<AnswerTooLarge>()("AnswerTooLarge", {
  host: Schema.String,
  status: Schema.Number,
  limit: Schema.Number,
  message: Schema.String
}) {}

/** A redirect that was not followed: refused by the call, one too many, or nowhere to go. */
export class RedirectRefused extends Schema.TaggedError<RedirectRefused>()("RedirectRefused", {
  host: Schema.String,
  status: Schema.Number,
  message: Schema.String
}) {}

/**
 * The answer was dropped on its status line and headers, before its body was read: by the
 * caller's `screen`, or for a content coding the guard does not decode.
 */
export class AnswerRefused extends Schema.TaggedError<AnswerRefused>()("AnswerRefused", {
  host: Schema.String,
  status: Schema.Number,
  message: Schema.String
}) {}

export type OutboundFailure =
  | DestinationRefused
  | DestinationUnreachable
  | OutboundTimedOut
  | AnswerTooLarge
  | RedirectRefused
  | AnswerRefused
