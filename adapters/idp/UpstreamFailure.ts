import * as client from "openid-client"
import { UpstreamLoginFailed } from "../../application/ports/UpstreamIdentityProvider.js"
import {
  AnswerRefused,
  AnswerTooLarge,
  DestinationRefused,
  DestinationUnreachable,
  type OutboundFailure,
  OutboundTimedOut,
  RedirectRefused
} from "../outbound/OutboundFailure.js"

// RFC 6749 §4.1.2.1: an error code is printable ASCII without `"` and `\`. The callback's query
// is written by whoever sent the browser to us, so anything else is not echoed.
const errorCodeSyntax = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,64}$/

const errorCode = (value: unknown): string =>
  typeof value === "string" && errorCodeSyntax.test(value) ? `"${value}"` : "(unreadable)"

const hasCode = (value: unknown): value is { readonly code: string } =>
  typeof value === "object" && value !== null && "code" in value && typeof value.code === "string"

const isOutboundFailure = (cause: unknown): cause is OutboundFailure =>
  cause instanceof DestinationRefused ||
  cause instanceof DestinationUnreachable ||
  cause instanceof OutboundTimedOut ||
  cause instanceof AnswerTooLarge ||
  cause instanceof RedirectRefused ||
  cause instanceof AnswerRefused

/**
 * Why a call to the upstream failed, in words that never carry a token, code or secret: only
 * the upstream's RFC error code, an errno, the outbound guard's message (a host at most), or
 * one of openid-client's / oauth4webapi's fixed messages (they name the parameter or claim that
 * failed a check, never its value).
 */
const describe = (cause: unknown): string => {
  // The guard's failures name a host at most. openid-client wraps what its fetch throws.
  const outbound = cause instanceof client.ClientError ? cause.cause : cause
  if (isOutboundFailure(outbound)) {
    return outbound._tag === "DestinationRefused"
      ? `the outbound guard refused the call (${outbound.message})`
      : outbound.message
  }
  if (cause instanceof client.AuthorizationResponseError) {
    return `the upstream answered with error ${errorCode(cause.error)}`
  }
  if (cause instanceof client.ResponseBodyError) {
    return `the upstream refused the request with error ${errorCode(cause.error)} (HTTP ${cause.status})`
  }
  if (cause instanceof client.WWWAuthenticateChallengeError) {
    return `the upstream refused our credentials (HTTP ${cause.status})`
  }
  if (cause instanceof client.ClientError) {
    // openid-client replaces oauth4webapi's precise message by a category; the original, as
    // precise and as free of values, is the cause when it is an Error.
    return cause.cause instanceof Error ? cause.cause.message : cause.message
  }
  if (cause instanceof DOMException && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
    return "the upstream did not answer in time"
  }
  if (cause instanceof TypeError && hasCode(cause.cause)) {
    // undici's "fetch failed", whose cause is the socket error (ECONNREFUSED, ENOTFOUND…).
    return `the upstream could not be reached (${cause.cause.code})`
  }
  return "an unexpected error occurred"
}

/** Whether an upstream's HTTP status is a failure on its side, worth trying again. */
const isServerFailure = (status: number): boolean => status >= 500

/**
 * An answer of the upstream with a status other than success. Only the status is shown: the body
 * may echo our request.
 */
export const httpStatus = (context: string, status: number): UpstreamLoginFailed =>
  new UpstreamLoginFailed({ message: `${context}: HTTP ${status}`, unavailable: isServerFailure(status) })

/**
 * Whether the call failed for want of an upstream that answers: unreachable, no answer in time,
 * or a failure on its side (HTTP 5xx). openid-client wraps what its fetch threw, and an answer it
 * could not read (a proxy's HTML 503), in a `ClientError` whose cause is that error or response.
 */
const isUnavailability = (cause: unknown): boolean => {
  if (cause instanceof client.ResponseBodyError) return isServerFailure(cause.status)
  const inner = cause instanceof client.ClientError ? cause.cause : cause
  if (isOutboundFailure(inner))
    return inner._tag === "DestinationUnreachable" || inner._tag === "OutboundTimedOut"
  if (inner instanceof Response) return isServerFailure(inner.status)
  if (inner instanceof DOMException) return inner.name === "TimeoutError" || inner.name === "AbortError"
  return inner instanceof TypeError && hasCode(inner.cause)
}

/** Maps any rejection to an `UpstreamLoginFailed` whose message says where and why. */
export const failed =
  (context: string) =>
  (cause: unknown): UpstreamLoginFailed =>
    new UpstreamLoginFailed({
      message: `${context}: ${describe(cause)}`,
      unavailable: isUnavailability(cause)
    })
