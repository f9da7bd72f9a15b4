import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import * as Match from "effect/Match"
import * as Predicate from "effect/Predicate"
import type * as AuthError from "../../../application/auth/AuthError.js"
import * as Passkey from "../../../domain/auth/Passkey.js"
import type { HttpResponse } from "../HttpMessage.js"
import type { Problems } from "../Problems.js"
import type { ErrorCode } from "./ErrorCode.js"
import type * as Refusal from "./Refusal.js"

/**
 * The status of each code, as Supabase Auth's handlers raise it (bc32168). Where it raises a
 * code with several statuses, this is the one most of its raise sites use, and the reasons
 * answered where it uses another say that status in the table below. A code it never raises
 * (`email_address_not_provided`) or raises without a fixed status (`unknown`) gets 400.
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
  mfa_webauthn_enroll_not_enabled: 422,
  mfa_webauthn_verify_not_enabled: 422,
  // auth-js's codes, not Supabase Auth's server's: the statuses of docs/decisions/0015.
  mfa_recovery_codes_enroll_not_enabled: 422,
  mfa_recovery_codes_verify_not_enabled: 422,
  mfa_recovery_codes_locked: 429,
  mfa_recovery_codes_sole_factor: 422,
  mfa_verified_factor_exists: 422,
  invalid_credentials: 400,
  email_address_not_authorized: 400,
  email_address_invalid: 400,
  web3_provider_disabled: 422,
  email_address_not_provided: 400,
  feature_disabled: 404,
  request_entity_too_large: 413,
  custom_provider_not_found: 404,
  over_custom_provider_quota: 400,
  passkey_disabled: 404,
  too_many_passkeys: 422,
  // Declared, never raised: a sign-in with an unknown credential fails its verification.
  webauthn_credential_not_found: 400,
  webauthn_challenge_not_found: 400,
  webauthn_challenge_expired: 400,
  webauthn_verification_failed: 400,
  webauthn_credential_exists: 422
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

/** Every reason a request can be refused for: a use case's, or the HTTP driver's own. */
export type Reason = AuthError.AuthError | Refusal.Refusal

/**
 * How Supabase Auth answers a reason: its error code, its message, the status (the code's usual
 * one unless given), `reasons` for `weak_password`; or, on the few paths where it answers in
 * OAuth's `{error, error_description}` shape, `oauthError` is the `error`, `message` the
 * `error_description`, the status 400, and `code` only names the failure in logs.
 */
export interface Answer {
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly reasons?: ReadonlyArray<string> | undefined
  readonly oauthError?: string | undefined
}

const answer = (code: ErrorCode, message: string, status: number = statusOf[code]): Answer => ({
  status,
  code,
  message
})

const oauthAnswer = (error: string, description: string, code: ErrorCode): Answer => ({
  status: 400,
  code,
  message: description,
  oauthError: error
})

/**
 * Supabase Auth's text for a send asked for again within the spacing: the whole seconds left,
 * rounded down as its integer division does.
 */
const tooSoon = (secondsLeft: number) =>
  `For security purposes, you can only request this after ${Math.max(0, Math.floor(secondsLeft))} seconds.`

/**
 * Go's `%q`: a double-quoted string with `"` and `\\` escaped and control characters written
 * as Go writes them, for the friendly name in `mfa_factor_name_conflict`'s message.
 */
export const goQuote = (text: string): string => {
  const named: Record<string, string> = {
    "\x07": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\"
  }
  let quoted = ""
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    const escaped = named[char]
    if (escaped !== undefined) quoted += escaped
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`
    // C1 controls and the line and paragraph separators are not printable to Go either.
    else if ((code >= 0x80 && code < 0xa0) || code === 0x2028 || code === 0x2029)
      quoted += `\\u${code.toString(16).padStart(4, "0")}`
    // Go's JSON decoder has made a lone surrogate the replacement character before this.
    else if (code >= 0xd800 && code <= 0xdfff) quoted += "\ufffd"
    else quoted += char
  }
  return `"${quoted}"`
}

/** The names Supabase Auth's messages give the factor types whose switches are off. */
const switchedTypeName: Record<AuthError.SwitchedFactorType, string> = {
  totp: "TOTP",
  phone: "Phone",
  webauthn: "WebAuthn",
  recovery_code: "Recovery Codes"
}

const enrollDisabledCode: Record<AuthError.SwitchedFactorType, ErrorCode> = {
  totp: "mfa_totp_enroll_not_enabled",
  phone: "mfa_phone_enroll_not_enabled",
  webauthn: "mfa_webauthn_enroll_not_enabled",
  recovery_code: "mfa_recovery_codes_enroll_not_enabled"
}

const verifyDisabledCode: Record<AuthError.SwitchedFactorType, ErrorCode> = {
  totp: "mfa_totp_verify_not_enabled",
  phone: "mfa_phone_verify_not_enabled",
  webauthn: "mfa_webauthn_verify_not_enabled",
  recovery_code: "mfa_recovery_codes_verify_not_enabled"
}

/**
 * A failed verify, by factor type: Supabase Auth's words for a code; for WebAuthn, its 500's
 * text on our 422 (docs/compatibility.md); for recovery codes, ours.
 */
const verificationFailed: Record<AuthError.SwitchedFactorType, string> = {
  totp: "Invalid TOTP code entered",
  phone: "Invalid MFA Phone code entered",
  webauthn: "Failed to validate WebAuthn MFA response",
  recovery_code: "Invalid recovery code entered"
}

/** Supabase Auth's words and status for an action refused below aal2; the last is ours. */
const aal2Required: Record<AuthError.Aal2Required["action"], Answer> = {
  enroll: answer("insufficient_aal", "AAL2 required to enroll a new factor"),
  unenroll: answer("insufficient_aal", "AAL2 required to unenroll verified factor", 422),
  update_user: answer(
    "insufficient_aal",
    "AAL2 session is required to update email or password when MFA is enabled.",
    401
  ),
  manage_passkeys: answer(
    "insufficient_aal",
    "AAL2 session is required to manage passkeys when MFA is enabled"
  ),
  manage_recovery_codes: answer("insufficient_aal", "AAL2 session is required to manage recovery codes")
}

/** Supabase Auth's words for a request that names both contacts, by where (each its own). */
const emailAndPhoneGiven: Record<AuthError.EmailAndPhoneGiven["at"], string> = {
  signup: "Only an email address or phone number should be provided on signup.",
  login: "Only an email address or phone number should be provided on login.",
  resend: "Only an email address or phone number should be provided.",
  verify: "Only an email address or phone number should be provided on verify"
}

const resendRequestInvalid: Record<AuthError.ResendRequestInvalid["problem"], string> = {
  unknown_type: "Missing one of these types: signup, email_change, sms, phone_change",
  email_missing: "Type provided requires an email address",
  phone_missing: "Type provided requires a phone number"
}

const verifyRequestInvalid: Record<AuthError.VerifyRequestInvalid["problem"], string> = {
  type_missing: "Verify requires a verification type",
  type_unsupported: "Unsupported verification type",
  token_missing: "Verify requires a token or a token hash",
  token_and_hash: "Verify requires either a token or a token hash",
  hash_with_contact: "Only the token_hash and type should be provided"
}

const otpRequestInvalid: Record<Refusal.OtpRequestInvalid["problem"], string> = {
  email_and_phone: "Only an email address or phone number should be provided",
  channel_with_email: "Channel should only be specified with Phone OTP",
  no_contact: "One of email or phone must be set"
}

const pkceParamsInvalid: Record<AuthError.PkceParamsInvalid["problem"], string> = {
  unpaired: "PKCE flow requires code_challenge_method and code_challenge",
  challenge_length: "code challenge has to be between 43 and 128 characters",
  challenge_characters:
    "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes",
  method_unsupported: "code challenge method not supported",
  phone_signup: "PKCE not supported for phone signups",
  exchange_incomplete: "invalid request: both auth code and code verifier should be non-empty"
}

/** Supabase Auth's words for a provider it will not start a sign-in at. */
const unsupportedProvider = (reason: AuthError.UnsupportedProvider) => {
  switch (reason.problem) {
    case "not_found":
      return `Unsupported provider: Provider ${reason.provider} could not be found`
    case "not_enabled":
      return "Unsupported provider: provider is not enabled"
    case "custom_providers_disabled":
      return "Unsupported provider: custom OAuth providers are disabled"
    case "custom_not_found":
      return `Unsupported provider: custom provider ${reason.provider} not found`
    case "custom_disabled":
      return `Unsupported provider: custom provider ${reason.provider} is disabled`
  }
}

/** Supabase Auth's words for a provider whose ID tokens it will not take; the name as Go's `%q`. */
const idTokenProviderUnsupported = (reason: AuthError.IdTokenProviderUnsupported) => {
  const quoted = JSON.stringify(reason.provider)
  switch (reason.problem) {
    case "not_allowed":
      return `Custom OIDC provider ${quoted} not allowed`
    case "custom_providers_disabled":
      return "Custom OAuth providers are disabled"
    case "custom_not_found":
      return `Custom provider ${quoted} not found`
    case "not_oidc":
      return `Provider ${quoted} is not an OIDC provider`
  }
}

const adminUserInvalid: Record<AuthError.AdminUserInvalid["problem"], string> = {
  no_contact: "Cannot create a user without either an email or phone",
  password_and_hash: "Only a password or a password hash should be provided",
  hash_format: "Invalid password hash format",
  id_not_uuid: "ID must conform to the uuid v4 format",
  id_nil: "ID cannot be a nil uuid"
}

const webAuthnParamsInvalid: Record<AuthError.WebAuthnParamsInvalid["problem"], string> = {
  missing: "WebAuthn config required",
  type: "WebAuthn type must be create or request",
  response_missing: "credential_response required",
  response_malformed: "Invalid credential_response"
}

const passkeyVerifyInvalid: Record<AuthError.PasskeyVerifyInvalid["problem"], string> = {
  challenge_id_missing: "challenge_id is required",
  credential_missing: "credential is required",
  challenge_id_not_uuid: "challenge_id must be a valid UUID"
}

const passkeyNameInvalid: Record<AuthError.PasskeyNameInvalid["problem"], string> = {
  missing: "friendly_name is required",
  too_long: `friendly_name must be ${Passkey.maxFriendlyNameLength} characters or less`
}

const sessionEndSuffix: Record<AuthError.SessionEnd, string> = {
  lifetime: "",
  inactivity: " (Inactivity)",
  low_aal: " (Low AAL: User Needs MFA Verification)",
  newer_login: " (Revoked by Newer Login)"
}

/**
 * The one table from reason to answer, in Supabase Auth's words at bc32168 (clients show them
 * and sometimes match on them). Keyed by every reason's tag, so a reason without a row does not
 * compile.
 */
const answers: { readonly [Tag in Reason["_tag"]]: (reason: Extract<Reason, { _tag: Tag }>) => Answer } = {
  // Requests and their input
  BadJson: (reason) => answer("bad_json", `Could not parse request body as JSON: ${reason.detail}`),
  MalformedEmail: () => answer("validation_failed", "Unable to validate email address: invalid format"),
  EmailTooLong: () => answer("validation_failed", "An email address is too long"),
  EmailRequired: () => answer("validation_failed", "An email address is required"),
  MalformedPhone: () => answer("validation_failed", "Invalid phone number format (E.164 required)"),
  MalformedUserId: () => answer("validation_failed", "user_id must be an UUID", 404),
  AnonymousPasswordWithoutContact: () =>
    answer(
      "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed",
      422
    ),
  MagicLinkWithoutEmail: () => answer("validation_failed", "Password recovery requires an email", 422),
  // 400 at /recover, where /magiclink's same words are 422.
  RecoveryWithoutEmail: () => answer("validation_failed", "Password recovery requires an email"),
  EmailAndPhoneGiven: (reason) => answer("validation_failed", emailAndPhoneGiven[reason.at]),
  ResendRequestInvalid: (reason) => answer("validation_failed", resendRequestInvalid[reason.problem]),
  VerifyRequestInvalid: (reason) => answer("validation_failed", verifyRequestInvalid[reason.problem]),
  OtpRequestInvalid: (reason) => answer("validation_failed", otpRequestInvalid[reason.problem]),
  SmsChannelUnsupported: () =>
    answer(
      "validation_failed",
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider."
    ),
  LogoutScopeUnsupported: (reason) =>
    answer("validation_failed", `Unsupported logout scope ${JSON.stringify(reason.scope)}`),
  ReauthenticationWithoutContact: () =>
    answer("validation_failed", "Reauthentication requires the user to have an email or a phone number"),
  CaptchaMissing: () =>
    answer("captcha_failed", "captcha protection: request disallowed (no captcha_token found)"),
  CaptchaRefused: (reason) =>
    answer("captcha_failed", `captcha protection: request disallowed (${reason.errorCodes.join(", ")})`),
  CaptchaUnverifiable: () => answer("unexpected_failure", "captcha verification process failed"),
  OverRequestRateLimit: () => answer("over_request_rate_limit", "Request rate limit reached"),

  // Bearer tokens and roles
  NoBearerToken: () => answer("no_authorization", "This endpoint requires a valid Bearer token"),
  BadJwt: (reason) => answer("bad_jwt", reason.message),
  MalformedSessionIdClaim: () => answer("bad_jwt", "invalid claim: session_id claim must be a UUID"),
  MissingSubClaim: () => answer("bad_jwt", "invalid claim: missing sub claim"),
  // The one `bad_jwt` Supabase Auth answers with 400.
  SubClaimNotUuid: () => answer("bad_jwt", "invalid claim: sub claim must be a UUID", 400),
  // 403, where other lookups of a user say 404.
  UserFromJwtNotFound: () => answer("user_not_found", "User from sub claim in JWT does not exist", 403),
  SessionFromJwtNotFound: () =>
    answer("session_not_found", "Session from session_id claim in JWT does not exist"),
  SessionNoLongerValid: () => answer("session_expired", "Session is no longer valid", 403),
  UserIsBanned: () => answer("user_banned", "User is banned"),
  NotAdmin: () => answer("not_admin", "User not allowed"),
  AppMetadataNeedsAdmin: () => answer("not_admin", "Updating app_metadata requires admin privileges"),
  TokenAudienceMismatch: () => answer("validation_failed", "Token audience doesn't match request audience"),

  // Sign-up and sign-in
  SignupDisabled: () => answer("signup_disabled", "Signups not allowed for this instance"),
  // The spec answers 400 where Supabase Auth answers 422 (docs/compatibility.md).
  UserAlreadyRegistered: () => answer("user_already_exists", "User already registered", 400),
  EmailInUse: () => answer("email_exists", "A user with this email address has already been registered"),
  PhoneInUse: () => answer("phone_exists", "A user with this phone number has already been registered"),
  PhoneInUseByAnother: () => answer("phone_exists", "Phone number already registered by another user"),
  // Supabase Auth answers 400 here, where a sign-up's taken address is 422.
  LinkedEmailInUse: () =>
    answer("email_exists", "A user with this email address has already been registered", 400),
  NoSuchUser: () => answer("user_not_found", "User not found"),
  NoUserWithEmail: () => answer("user_not_found", "User with this email not found"),
  SignupWithoutPassword: () => answer("validation_failed", "Signup requires a valid password"),
  LoginWithoutContact: () => answer("validation_failed", "missing email or phone"),
  WeakPassword: (reason) => ({ ...answer("weak_password", reason.message), reasons: reason.reasons }),
  InvalidCredentials: () => answer("invalid_credentials", "Invalid login credentials"),
  // Supabase Auth's answer to an unknown `grant_type`: this code, and the OAuth error's name as text.
  UnsupportedGrantType: () => answer("invalid_credentials", "unsupported_grant_type"),
  // Supabase Auth says 403 on every other path.
  PasswordGrantUserBanned: () => answer("user_banned", "User is banned", 400),
  EmailNotConfirmed: () => answer("email_not_confirmed", "Email not confirmed"),
  PhoneNotConfirmed: () => answer("phone_not_confirmed", "Phone not confirmed"),
  AnonymousSignInsDisabled: () => answer("anonymous_provider_disabled", "Anonymous sign-ins are disabled"),
  // The password grant, /magiclink and /otp: 422; /resend: 400, same text.
  EmailLoginsDisabled: () => answer("email_provider_disabled", "Email logins are disabled", 422),
  EmailResendDisabled: () => answer("email_provider_disabled", "Email logins are disabled"),
  EmailSignupsDisabled: () => answer("email_provider_disabled", "Email signups are disabled"),
  PhoneLoginsDisabled: () => answer("phone_provider_disabled", "Phone logins are disabled", 422),
  PhoneResendDisabled: () => answer("phone_provider_disabled", "Phone logins are disabled"),
  PhoneSignupsDisabled: () => answer("phone_provider_disabled", "Phone signups are disabled"),
  PhoneOtpDisabled: () => answer("phone_provider_disabled", "Unsupported phone provider"),
  UserNotSaved: (reason) =>
    answer(
      "unexpected_failure",
      reason.write === "new" ? "Database error saving new user" : "Database error updating user"
    ),
  SamlDisabled: () => answer("saml_provider_disabled", "SAML 2.0 is disabled"),
  Web3Disabled: () => answer("web3_provider_disabled", "Web3 provider is disabled"),

  // External providers and identities
  ManualLinkingDisabled: () => answer("manual_linking_disabled", "Manual linking is disabled"),
  LinkingWithoutAccessToken: () =>
    oauthAnswer(
      "invalid request",
      "Linking requires a valid user access token in Authorization",
      "no_authorization"
    ),
  IdentityAlreadyLinked: (reason) =>
    answer(
      "identity_already_exists",
      reason.toAnotherUser ? "Identity is already linked to another user" : "Identity is already linked"
    ),
  // Supabase Auth's code for a sign-in, and for a link (linkIdentityToUser).
  UnverifiedProviderEmail: (reason) =>
    answer(
      reason.linking ? "email_not_confirmed" : "provider_email_needs_verification",
      reason.mailed
        ? `Unverified email with ${reason.provider}. A confirmation email has been sent to your ${reason.provider} email`
        : `Unverified email with ${reason.provider}. Verify the email with ${reason.provider} in order to sign in`,
      422
    ),
  LastIdentity: () =>
    answer("single_identity_not_deletable", "User must have at least 1 identity after unlinking"),
  IdentityNotFound: () => answer("identity_not_found", "Identity doesn't exist"),
  UnlinkEmailConflict: () =>
    answer("email_conflict_identity_not_deletable", "Unable to unlink identity due to email conflict"),
  UnsupportedProvider: (reason) => answer("validation_failed", unsupportedProvider(reason)),
  ProviderMisconfigured: (reason) => answer("validation_failed", `Unsupported provider: ${reason.detail}`),
  ProviderUnreachable: (reason) =>
    answer("unexpected_failure", `Unable to reach the ${reason.provider} provider`),
  OAuthStateMissing: () => answer("bad_oauth_callback", "OAuth state parameter missing"),
  OAuthStateNotFound: () => answer("bad_oauth_state", "OAuth state not found or expired"),
  ProviderRefused: (reason) => oauthAnswer(reason.error, reason.description, "bad_oauth_callback"),
  ProviderProfileUnavailable: (reason) =>
    oauthAnswer(
      "server_error",
      reason.missing === "email"
        ? "Error getting user email from external provider"
        : "Error getting user profile from external provider",
      "unexpected_failure"
    ),
  IdTokenRefused: (reason) =>
    oauthAnswer(
      reason.nonceMismatch ? "invalid nonce" : "invalid request",
      reason.message,
      "validation_failed"
    ),
  IdTokenProviderUnsupported: (reason) => answer("validation_failed", idTokenProviderUnsupported(reason)),
  IdTokenIssuerRefused: (reason) => answer("validation_failed", reason.message),
  IdTokenProviderDisabled: (reason) => answer("provider_disabled", reason.message),

  // The refresh-token grant
  MalformedRefreshToken: () => answer("validation_failed", "Refresh token is not valid"),
  RefreshTokenUnknown: () =>
    answer("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
  RefreshTokenReused: () => answer("refresh_token_already_used", "Invalid Refresh Token: Already Used"),
  RefreshTokenUserBanned: () => answer("user_banned", "Invalid Refresh Token: User Banned", 400),
  RefreshSessionEnded: (reason) =>
    answer("session_expired", `Invalid Refresh Token: Session Expired${sessionEndSuffix[reason.end]}`),

  // PKCE
  PkceParamsInvalid: (reason) => answer("validation_failed", pkceParamsInvalid[reason.problem]),
  FlowStateNotFound: () => answer("flow_state_not_found", "invalid flow state, no valid flow state found"),
  FlowStateExpired: () => answer("flow_state_expired", "invalid flow state, flow state has expired"),
  BadCodeVerifier: () =>
    answer("bad_code_verifier", "code challenge does not match previously saved code verifier"),

  // One-time codes, links and sending
  OtpExpired: () => answer("otp_expired", "Token has expired or is invalid"),
  EmailLinkExpired: () => answer("otp_expired", "Email link is invalid or has expired"),
  OtpSignupsDisabled: () => answer("otp_disabled", "Signups not allowed for otp"),
  OverEmailSendRateLimit: () => answer("over_email_send_rate_limit", "email rate limit exceeded"),
  OverSmsSendRateLimit: () => answer("over_sms_send_rate_limit", "SMS rate limit exceeded"),
  SentTooRecently: (reason) =>
    answer(
      reason.channel === "email" ? "over_email_send_rate_limit" : "over_sms_send_rate_limit",
      tooSoon(reason.secondsLeft)
    ),
  SmsUnavailable: () => answer("sms_send_failed", "Unable to get SMS provider"),
  SmsNotDelivered: (reason) =>
    answer("sms_send_failed", `Error sending ${reason.otpType} OTP to provider: ${reason.detail}`),

  // The signed-in user
  ReauthenticationNeeded: () =>
    answer("reauthentication_needed", "Password update requires reauthentication"),
  ReauthenticationNotValid: () => answer("reauthentication_not_valid", "Nonce has expired or is invalid"),
  ContactNotVerified: (reason) =>
    reason.channel === "email"
      ? answer("email_not_confirmed", "Please verify your email first.", 422)
      : answer("phone_not_confirmed", "Please verify your phone first.", 422),
  SamePassword: () => answer("same_password", "New password should be different from the old password."),
  CurrentPasswordRequired: () =>
    answer("current_password_required", "Current password required when setting new password."),
  // Supabase Auth words a wrong current password exactly as a missing one.
  CurrentPasswordInvalid: () =>
    answer("current_password_invalid", "Current password required when setting new password."),

  // The admin API
  AdminUserInvalid: (reason) => answer("validation_failed", adminUserInvalid[reason.problem]),
  BanDurationInvalid: (reason) =>
    answer("validation_failed", `invalid format for ban duration: ${reason.message}`),
  LinkTypeInvalid: (reason) =>
    answer("validation_failed", `Invalid email action link type requested: ${reason.type}`),
  CurrentEmailLinkNeedsSecureChange: () =>
    answer("validation_failed", "Enable secure email change to generate link for current email"),
  PaginationInvalid: (reason) =>
    answer(
      "validation_failed",
      `Bad Pagination Parameters: strconv.ParseUint: parsing ${JSON.stringify(reason.value)}: ${reason.outOfRange ? "value out of range" : "invalid syntax"}`
    ),
  SortInvalid: (reason) =>
    answer(
      "validation_failed",
      reason.part === "field"
        ? `Bad Sort Parameters: bad field for sort '${reason.value}'`
        : `Bad Sort Parameters: bad direction for sort '${reason.value}', only 'asc' and 'desc' allowed`
    ),

  // The admin API's custom providers
  CustomProvidersDisabled: () => answer("feature_disabled", "Custom OAuth providers are disabled"),
  CustomProviderNotFound: () => answer("custom_provider_not_found", "Custom OAuth provider not found"),
  CustomProviderTaken: () =>
    answer("conflict", "A custom OAuth provider with this identifier already exists", 400),
  CustomProviderQuotaReached: () =>
    answer("over_custom_provider_quota", "Maximum number of custom OAuth/OIDC providers reached"),
  CustomProviderTypeInvalid: () => answer("validation_failed", "type must be either 'oauth2' or 'oidc'"),
  CustomProviderInvalid: (reason) => answer("validation_failed", reason.message),
  ProviderEndpointRefused: (reason) => answer("validation_failed", reason.message),

  // Factors (MFA), recovery codes and passkeys
  AnonymousUserNotAllowed: () =>
    answer("no_authorization", "Anonymous user not allowed to perform these actions", 403),
  // 404, as Supabase Auth's loadFactor answers it.
  MalformedFactorId: () => answer("validation_failed", "factor_id must be an UUID", 404),
  FactorTypeUnsupported: () =>
    answer("validation_failed", "factor_type needs to be totp, phone, or webauthn"),
  FactorCodeMissing: () => answer("validation_failed", "Code needs to be non-empty"),
  FactorPhoneMissing: () => answer("validation_failed", "Phone number required to enroll Phone factor"),
  // Supabase Auth answers 500 "Error generating QR Code" here.
  TotpIssuerTooLong: () => answer("validation_failed", "issuer is too long for the factor's QR code"),
  WebAuthnParamsInvalid: (reason) => answer("validation_failed", webAuthnParamsInvalid[reason.problem]),
  FactorNotFound: () => answer("mfa_factor_not_found", "Factor not found"),
  // 422 at a verify, where a factor of a path is 404.
  ChallengeNotFound: () =>
    answer("mfa_factor_not_found", "MFA factor with the provided challenge ID not found", 422),
  FactorEnrollDisabled: (reason) =>
    answer(
      enrollDisabledCode[reason.factorType],
      `MFA enroll is disabled for ${switchedTypeName[reason.factorType]}`
    ),
  FactorVerifyDisabled: (reason) =>
    answer(
      // Supabase Auth's VerifyFactor answers WebAuthn with the enrolment's code; kept.
      reason.factorType === "webauthn" && reason.at === "verify"
        ? enrollDisabledCode.webauthn
        : verifyDisabledCode[reason.factorType],
      `MFA verification is disabled for ${switchedTypeName[reason.factorType]}`
    ),
  VerifiedPhoneFactorExists: () =>
    answer(
      "mfa_verified_factor_exists",
      "A verified phone factor already exists, unenroll the existing factor to continue"
    ),
  RecoveryCodesExist: () =>
    answer("mfa_verified_factor_exists", "Recovery codes already exist, regenerate them to get new codes"),
  RecoveryCodesSoleFactor: () =>
    answer("mfa_recovery_codes_sole_factor", "Recovery codes require another verified factor"),
  FactorNameConflict: (reason) =>
    answer(
      "mfa_factor_name_conflict",
      `A factor with the friendly name ${goQuote(reason.friendlyName)} for this user already exists`
    ),
  TooManyFactors: () =>
    answer(
      "too_many_enrolled_mfa_factors",
      "Maximum number of verified factors reached, unenroll to continue"
    ),
  Aal2Required: (reason) => aal2Required[reason.action],
  ChallengeUsedOrMoved: () =>
    answer("mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch."),
  FactorChallengeExpired: (reason) =>
    answer(
      "mfa_challenge_expired",
      `MFA challenge ${reason.challengeId} has expired, verify against another challenge or create a new challenge.`
    ),
  FactorVerificationFailed: (reason) =>
    answer("mfa_verification_failed", verificationFailed[reason.factorType]),
  FactorSecretUnreadable: () => answer("unexpected_failure", "Database error verifying MFA TOTP secret"),
  FactorVerificationRejected: (reason) => answer("mfa_verification_rejected", reason.message),
  RecoveryCodesLocked: (reason) =>
    answer(
      "mfa_recovery_codes_locked",
      `Too many invalid recovery codes entered, try again after ${Math.max(1, Math.ceil(reason.secondsLeft))} seconds.`
    ),
  PasskeysDisabled: () => answer("passkey_disabled", "Passkeys are disabled"),
  TooManyPasskeys: () => answer("too_many_passkeys", "Maximum number of passkeys reached"),
  // validation_failed with 422, as Supabase Auth answers it.
  SsoUserPasskey: () => answer("validation_failed", "SSO users cannot register passkeys", 422),
  PasskeyNotFound: () => answer("validation_failed", "Passkey not found", 404),
  PasskeyVerifyInvalid: (reason) => answer("validation_failed", passkeyVerifyInvalid[reason.problem]),
  PasskeyNameInvalid: (reason) => answer("validation_failed", passkeyNameInvalid[reason.problem]),
  WebAuthnChallengeNotFound: () =>
    answer("webauthn_challenge_not_found", "Challenge not found or already used"),
  WebAuthnChallengeExpired: () => answer("webauthn_challenge_expired", "Challenge has expired"),
  WebAuthnVerificationFailed: (reason) =>
    answer(
      "webauthn_verification_failed",
      reason.failure === "unparsable" ? "Invalid credential response" : "Credential verification failed"
    ),
  WebAuthnCredentialExists: () =>
    answer("webauthn_credential_exists", "This credential is already registered"),
  // 403 at a passkey sign-in, as Supabase Auth's PasskeyAuthenticationVerify answers them.
  PasskeySignInRefused: (reason) =>
    reason.why === "banned"
      ? answer("user_banned", "User is banned", 403)
      : reason.why === "email_not_confirmed"
        ? answer("email_not_confirmed", "Email not confirmed", 403)
        : answer("phone_not_confirmed", "Phone not confirmed", 403)
}

/** Whether `error` is a reason this table answers, not some other failure. */
export const isReason = (error: unknown): error is Reason =>
  Predicate.hasProperty(error, "_tag") && typeof error._tag === "string" && Object.hasOwn(answers, error._tag)

/** How Supabase Auth answers `reason`. */
export const describe = (reason: Reason): Answer => Match.valueTags(reason, answers)

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
 * The answer to a refused request, in the shape the request's `X-Supabase-Api-Version` asks for.
 * A reason Supabase Auth answers in OAuth's shape gets `{error, error_description}` and no
 * `x-sb-error-code`, since that body has no error code.
 */
export const fromError = (
  reason: Reason,
  requestHeaders: IncomingHttpHeaders,
  requestId: string
): HttpResponse => {
  const answered = describe(reason)
  if (answered.oauthError !== undefined) {
    const version = apiVersion(requestHeaders)
    return jsonResponse(
      answered.status,
      // Supabase Auth leaves out an empty description.
      answered.message === ""
        ? { error: answered.oauthError }
        : { error: answered.oauthError, error_description: answered.message },
      version === undefined ? {} : { [apiVersionHeader]: version }
    )
  }
  return render(answered, requestHeaders, requestId)
}

/** An endpoint's refusals, answered with their status and body. */
export const answering =
  <R>(request: { readonly headers: IncomingHttpHeaders; readonly requestId: string }) =>
  (effect: Effect.Effect<HttpResponse, Reason, R>): Effect.Effect<HttpResponse, never, R> =>
    Effect.catchAll(effect, (reason) => Effect.succeed(fromError(reason, request.headers, request.requestId)))

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
