import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import type { AuthError, ErrorCode } from "../../../application/auth/AuthError.js"
import type { HttpResponse } from "../HttpMessage.js"
import type { Problems } from "../Problems.js"

/**
 * The status of each code, as Supabase Auth's handlers raise it (bc32168). Where it raises a
 * code with several statuses, this is the one most of its raise sites use, and the errors
 * raised where it uses another carry that status themselves (AuthError's `status`). A code it
 * never raises (`email_address_not_provided`) or raises without a fixed status (`unknown`)
 * gets 400.
 */
export const statusOf: Readonly<Record<ErrorCode, number>> = {
  unknown: 400,
  unexpected_failure: 500,
  validation_failed: 400,
  bad_json: 400,
  email_exists: 422,
  phone_exists: 422,
  bad_jwt: 403,
  not_admin: 403,
  no_authorization: 401,
  user_not_found: 404,
  session_not_found: 403,
  session_expired: 400,
  refresh_token_not_found: 400,
  refresh_token_already_used: 400,
  flow_state_not_found: 404,
  flow_state_expired: 422,
  flow_state_already_used: 400,
  signup_disabled: 422,
  user_banned: 403,
  provider_email_needs_verification: 422,
  invite_not_found: 404,
  bad_oauth_state: 400,
  bad_oauth_callback: 400,
  oauth_provider_not_supported: 400,
  unexpected_audience: 403,
  single_identity_not_deletable: 422,
  email_conflict_identity_not_deletable: 422,
  identity_already_exists: 422,
  email_provider_disabled: 400,
  phone_provider_disabled: 400,
  too_many_enrolled_mfa_factors: 422,
  mfa_factor_name_conflict: 422,
  mfa_factor_not_found: 404,
  mfa_ip_address_mismatch: 422,
  mfa_challenge_expired: 422,
  mfa_verification_failed: 422,
  mfa_verification_rejected: 403,
  insufficient_aal: 403,
  captcha_failed: 400,
  saml_provider_disabled: 404,
  manual_linking_disabled: 404,
  sms_send_failed: 422,
  email_not_confirmed: 400,
  phone_not_confirmed: 400,
  user_already_exists: 422,
  conflict: 409,
  provider_disabled: 400,
  user_sso_managed: 422,
  reauthentication_needed: 400,
  same_password: 422,
  reauthentication_not_valid: 422,
  current_password_invalid: 400,
  current_password_required: 400,
  otp_expired: 403,
  otp_disabled: 422,
  identity_not_found: 422,
  weak_password: 422,
  over_request_rate_limit: 429,
  over_email_send_rate_limit: 429,
  over_sms_send_rate_limit: 429,
  bad_code_verifier: 400,
  anonymous_provider_disabled: 422,
  hook_timeout: 422,
  hook_timeout_after_retry: 422,
  hook_payload_over_size_limit: 422,
  hook_payload_invalid_content_type: 400,
  request_timeout: 504,
  mfa_phone_enroll_not_enabled: 422,
  mfa_phone_verify_not_enabled: 422,
  mfa_totp_enroll_not_enabled: 422,
  mfa_totp_verify_not_enabled: 422,
  mfa_verified_factor_exists: 422,
  invalid_credentials: 400,
  email_address_not_authorized: 400,
  email_address_invalid: 400,
  web3_provider_disabled: 422,
  email_address_not_provided: 400,
  feature_disabled: 404,
  request_entity_too_large: 413,
  custom_provider_not_found: 404,
  over_custom_provider_quota: 400
}

/** Picks the error body's shape on a request; names the shape on the response. */
export const apiVersionHeader = "x-supabase-api-version"
/** The error code again, for proxies and logs that read no bodies. */
export const errorCodeHeader = "x-sb-error-code"

/** The one API version after the initial one; later dates mean it too. */
export const apiVersion20240101 = "2024-01-01"

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/

/** A calendar date written YYYY-MM-DD, as Go's `time.Parse("2006-01-02")` accepts it. */
const isDate = (text: string) => {
  const match = isoDate.exec(text)
  if (match === null) return false
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  // Day 0 of the next month is the last day of this one.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth
}

/**
 * The API version a request asks for: `2024-01-01` when its `X-Supabase-Api-Version` is that
 * date or a later one, else undefined (the initial version), which is also what a missing or
 * malformed header means, as in Supabase Auth. Node joins a repeated header with ", "; Go reads
 * the first line, so the text before the first comma is the value.
 */
export const apiVersion = (headers: IncomingHttpHeaders): typeof apiVersion20240101 | undefined => {
  const raw = headers[apiVersionHeader]
  const first = (typeof raw === "string" ? raw : raw?.[0])?.split(",")[0]?.trim()
  // ISO dates compare as text once they are valid dates.
  return first !== undefined && isDate(first) && first >= apiVersion20240101 ? apiVersion20240101 : undefined
}

/**
 * `response` with the API version the request asked for, if any. Supabase Auth sends the
 * header on errors only; every answer of this service carries it, so a client sees one version
 * throughout. A request without a recognised version gets no header, as there: the initial
 * version has no name, and the header tells clients the body's shape.
 */
export const withApiVersion = (response: HttpResponse, requestHeaders: IncomingHttpHeaders): HttpResponse =>
  apiVersion(requestHeaders) === undefined
    ? response
    : { ...response, headers: { ...response.headers, [apiVersionHeader]: apiVersion20240101 } }

/**
 * JSON as Go's encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, so a body is the
 * same bytes Supabase Auth would send (and safe inside HTML).
 */
const goJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

const jsonResponse = (status: number, body: unknown, headers: Record<string, string>): HttpResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: goJson(body)
})

interface Failure {
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly reasons?: ReadonlyArray<string> | undefined
}

/** `weak_password: {reasons}` on that code's bodies; Go leaves out an empty list, not the object. */
const weakPasswordField = (failure: Failure) =>
  failure.code !== "weak_password"
    ? {}
    : {
        weak_password:
          failure.reasons === undefined || failure.reasons.length === 0 ? {} : { reasons: failure.reasons }
      }

/** The legacy body, which names the status: `{code: <status>, error_code, msg}`, `error_id` on 5xx. */
const legacyBody = (failure: Failure, requestId: string) => ({
  code: failure.status,
  error_code: failure.code,
  msg: failure.message,
  ...(failure.status >= 500 ? { error_id: requestId } : {}),
  ...weakPasswordField(failure)
})

/** The 2024-01-01 body: `{code: <error code>, message}`, and nothing else but `weak_password`. */
const currentBody = (failure: Failure) => ({
  code: failure.code,
  message: failure.message,
  ...weakPasswordField(failure)
})

const render = (failure: Failure, requestHeaders: IncomingHttpHeaders, requestId: string): HttpResponse => {
  const version = apiVersion(requestHeaders)
  const headers: Record<string, string> = { [errorCodeHeader]: failure.code }
  if (version === undefined) return jsonResponse(failure.status, legacyBody(failure, requestId), headers)
  headers[apiVersionHeader] = version
  return jsonResponse(failure.status, currentBody(failure), headers)
}

/**
 * The answer to an AuthError, in the shape the request's `X-Supabase-Api-Version` asks for.
 * An error Supabase Auth answers in OAuth's shape gets `{error, error_description}` (400 unless
 * it says otherwise) and no `x-sb-error-code`, since that body has no error code.
 */
export const fromError = (
  error: AuthError,
  requestHeaders: IncomingHttpHeaders,
  requestId: string
): HttpResponse => {
  const status = error.status ?? (error.oauthError === undefined ? statusOf[error.code] : 400)
  if (error.oauthError !== undefined) {
    const version = apiVersion(requestHeaders)
    return jsonResponse(
      status,
      // Supabase Auth leaves out an empty description.
      error.message === ""
        ? { error: error.oauthError }
        : { error: error.oauthError, error_description: error.message },
      version === undefined ? {} : { [apiVersionHeader]: version }
    )
  }
  return render(
    { status, code: error.code, message: error.message, reasons: error.reasons },
    requestHeaders,
    requestId
  )
}

/** An endpoint's AuthErrors, answered with their status and body. */
export const answering =
  <R>(request: { readonly headers: IncomingHttpHeaders; readonly requestId: string }) =>
  (effect: Effect.Effect<HttpResponse, AuthError, R>): Effect.Effect<HttpResponse, never, R> =>
    Effect.catchTag(effect, "AuthError", (error) =>
      Effect.succeed(fromError(error, request.headers, request.requestId))
    )

/** Go's `http.Error`, which Supabase Auth's router and Go's server use for their own answers. */
const plainText = (status: number, text: string): HttpResponse => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  body: text
})

/**
 * No request headers reach these, so they take the shape of a request that names no version
 * (and a client reads them as such: they carry no version header). Only 5xx bodies show the id.
 */
const legacy = (status: number, code: ErrorCode, message: string, requestId: string) =>
  render({ status, code, message }, {}, requestId)

/**
 * What the server answers on its own, as Supabase Auth does where it has an answer: its router
 * answers an unknown path with Go's plain-text 404 and a known path's other methods with an
 * empty 405; its handlers answer an oversized body with `request_entity_too_large`. A body it
 * cannot read is `bad_json` there; the server's own checks of the same kind (a body of another
 * media type, a NUL character, a malformed request) use that code with their own message, and a
 * 400, since Supabase Auth reads every body as JSON whatever its type and has no 415.
 */
export const problems: Problems = {
  notFound: plainText(404, "404 page not found\n"),
  methodNotAllowed: { status: 405, headers: {}, body: undefined },
  badRequest: (description) => legacy(400, "bad_json", description, ""),
  unsupportedMediaType: (accepted) =>
    legacy(400, "bad_json", `the body must be ${accepted.join(" or ")}`, ""),
  tooLarge: (limitBytes) =>
    legacy(413, "request_entity_too_large", `Request body too large (max ${limitBytes} bytes)`, ""),
  // Go's server answers these itself, before any handler, in plain text.
  headersTooLarge: plainText(431, "431 Request Header Fields Too Large"),
  unavailable: (requestId, retryAfterSeconds) => {
    const response = legacy(
      503,
      "unexpected_failure",
      "Service temporarily unavailable, please retry after a moment.",
      requestId
    )
    return { ...response, headers: { ...response.headers, "retry-after": String(retryAfterSeconds) } }
  },
  internal: (requestId) =>
    legacy(
      500,
      "unexpected_failure",
      "Unexpected failure, please check server logs for more information",
      requestId
    )
}
