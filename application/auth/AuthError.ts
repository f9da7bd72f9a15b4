import * as Schema from "effect/Schema"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"

/**
 * The error codes of Supabase Auth (`internal/api/apierrors/errorcode.go`), spelled as there
 * and in that file's order: clients branch on them (`error.code` in supabase-js), so a code is
 * a name we never invent or rename. Left out are the codes of features this service does not
 * have: SAML and SSO providers, passkeys and WebAuthn, Supabase Auth's own OAuth server, Web3
 * chains, and the OAuth state it keeps for external sign-ins (`oauth_client_state_*`,
 * `oauth_invalid_state`; a bad state here is `bad_oauth_state`). Only `saml_provider_disabled`
 * and `web3_provider_disabled` stay of those, to answer "disabled" where a client may still
 * call. The rest are all here, whether this service raises them yet or not: the MFA and hook
 * codes, for one, belong to features still to come.
 */
export const ErrorCode = Schema.Literal(
  "unknown",
  "unexpected_failure",
  "validation_failed",
  "bad_json",
  "email_exists",
  "phone_exists",
  "bad_jwt",
  "not_admin",
  "no_authorization",
  "user_not_found",
  "session_not_found",
  "session_expired",
  "refresh_token_not_found",
  "refresh_token_already_used",
  "flow_state_not_found",
  "flow_state_expired",
  "flow_state_already_used",
  "signup_disabled",
  "user_banned",
  "provider_email_needs_verification",
  "invite_not_found",
  "bad_oauth_state",
  "bad_oauth_callback",
  "oauth_provider_not_supported",
  "unexpected_audience",
  "single_identity_not_deletable",
  "email_conflict_identity_not_deletable",
  "identity_already_exists",
  "email_provider_disabled",
  "phone_provider_disabled",
  "too_many_enrolled_mfa_factors",
  "mfa_factor_name_conflict",
  "mfa_factor_not_found",
  "mfa_ip_address_mismatch",
  "mfa_challenge_expired",
  "mfa_verification_failed",
  "mfa_verification_rejected",
  "insufficient_aal",
  "captcha_failed",
  "saml_provider_disabled",
  "manual_linking_disabled",
  "sms_send_failed",
  "email_not_confirmed",
  "phone_not_confirmed",
  "user_already_exists",
  "conflict",
  "provider_disabled",
  "user_sso_managed",
  "reauthentication_needed",
  "same_password",
  "reauthentication_not_valid",
  "current_password_invalid",
  "current_password_required",
  "otp_expired",
  "otp_disabled",
  "identity_not_found",
  "weak_password",
  "over_request_rate_limit",
  "over_email_send_rate_limit",
  "over_sms_send_rate_limit",
  "bad_code_verifier",
  "anonymous_provider_disabled",
  "hook_timeout",
  "hook_timeout_after_retry",
  "hook_payload_over_size_limit",
  "hook_payload_invalid_content_type",
  "request_timeout",
  "mfa_phone_enroll_not_enabled",
  "mfa_phone_verify_not_enabled",
  "mfa_totp_enroll_not_enabled",
  "mfa_totp_verify_not_enabled",
  "mfa_verified_factor_exists",
  "invalid_credentials",
  "email_address_not_authorized",
  "email_address_invalid",
  "web3_provider_disabled",
  "email_address_not_provided",
  "feature_disabled",
  "request_entity_too_large",
  "custom_provider_not_found",
  "over_custom_provider_quota"
)
export type ErrorCode = typeof ErrorCode.Type

/**
 * A failure of the auth service as a client sees it: Supabase Auth's error code and the
 * message it shows. adapters/http/auth/ErrorResponse.ts gives each code its status and body.
 */
export class AuthError extends Schema.TaggedError<AuthError>()("AuthError", {
  code: ErrorCode,
  message: Schema.String,
  /**
   * Supabase Auth raises some codes with more than one status (`user_banned` is 403 on an
   * authenticated request but 400 at the password grant); the status table keeps the usual
   * one, and an error raised where Supabase Auth uses another carries it here.
   */
  status: Schema.optional(Schema.Int),
  /** For `weak_password`: which rules the password broke. */
  reasons: Schema.optional(Schema.Array(PasswordPolicy.WeakPasswordReason)),
  /**
   * A few paths of Supabase Auth answer in OAuth's `{error, error_description}` shape instead
   * of its own: this is the `error`, and `message` the `error_description`. `code` then only
   * names the failure in logs and metrics; the client never sees it.
   */
  oauthError: Schema.optional(Schema.String)
}) {}

const make = (code: ErrorCode, message: string, status?: number) =>
  new AuthError(status === undefined ? { code, message } : { code, message, status })

// Requests and their bodies

export const validationFailed = (message: string) => make("validation_failed", message)
/** `detail` says what is wrong with the body; Supabase Auth puts its JSON decoder's error there. */
export const badJson = (detail: string) => make("bad_json", `Could not parse request body as JSON: ${detail}`)
export const requestEntityTooLarge = (limitBytes: number) =>
  make("request_entity_too_large", `Request body too large (max ${limitBytes} bytes)`)
export const requestTimeout = () =>
  make("request_timeout", "Processing this request timed out, please retry after a moment.")
export const invalidEmailFormat = () =>
  make("validation_failed", "Unable to validate email address: invalid format")
export const invalidPhoneFormat = () =>
  make("validation_failed", "Invalid phone number format (E.164 required)")
/** A failure the client cannot act on; the message is shown, so it names no internals. */
export const unexpectedFailure = (message: string) => make("unexpected_failure", message)
export const captchaMissing = () =>
  make("captcha_failed", "captcha protection: request disallowed (no captcha_token found)")
/** `providerCodes`: the captcha provider's own error codes, comma-separated. */
export const captchaFailed = (providerCodes: string) =>
  make("captcha_failed", `captcha protection: request disallowed (${providerCodes})`)

// Bearer tokens and roles

export const noAuthorization = () => make("no_authorization", "This endpoint requires a valid Bearer token")
/** An anonymous user's token on an endpoint that refuses anonymous users: 403, not 401. */
export const anonymousUserNotAllowed = () =>
  make("no_authorization", "Anonymous user not allowed to perform these actions", 403)
export const badJwt = (message: string) => make("bad_jwt", message)
/** `detail`: why the token failed to verify (expired, bad signature, unknown key…). */
export const badJwtSignature = (detail: string) =>
  make("bad_jwt", `invalid JWT: unable to parse or verify signature, ${detail}`)
/** The one `bad_jwt` Supabase Auth answers with 400. */
export const subClaimNotUuid = () => make("bad_jwt", "invalid claim: sub claim must be a UUID", 400)
export const notAdmin = () => make("not_admin", "User not allowed")
/** A verified token whose `sub` names no user (deleted since): 403, where other lookups say 404. */
export const userFromJwtNotFound = () =>
  make("user_not_found", "User from sub claim in JWT does not exist", 403)
/** A verified token whose `session_id` names no session: the user signed out elsewhere. */
export const sessionNotFound = () =>
  make("session_not_found", "Session from session_id claim in JWT does not exist")
/** A verified token whose session has timed out: 403, where the refresh grant says 400. */
export const sessionNoLongerValid = () => make("session_expired", "Session is no longer valid", 403)
export const userBanned = () => make("user_banned", "User is banned")
/** PUT /user changing the email, phone or password of a user with MFA on an aal1 session. */
export const aal2RequiredToUpdateUser = () =>
  make("insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled.", 401)

// Sign-up and sign-in

export const signupDisabled = () => make("signup_disabled", "Signups not allowed for this instance")
export const userAlreadyExists = () => make("user_already_exists", "User already registered")
export const emailExists = () =>
  make("email_exists", "A user with this email address has already been registered")
export const phoneExists = () =>
  make("phone_exists", "A user with this phone number has already been registered")
/**
 * A user looked up by id that is not there: the admin API's lookups, and a sign-in or link
 * whose user was deleted meanwhile.
 */
export const userNotFound = () => make("user_not_found", "User not found")
/** `reasons` and `message` as PasswordPolicy.check words them. */
export const weakPassword = (reasons: ReadonlyArray<PasswordPolicy.WeakPasswordReason>, message: string) =>
  new AuthError({ code: "weak_password", message, reasons })
export const invalidCredentials = () => make("invalid_credentials", "Invalid login credentials")
/** Supabase Auth's answer to an unknown `grant_type`: this code, and the OAuth error's name as text. */
export const unsupportedGrantType = () => make("invalid_credentials", "unsupported_grant_type")
/** At the password grant; Supabase Auth says 403 on every other path. */
export const passwordGrantUserBanned = () => make("user_banned", "User is banned", 400)
export const emailNotConfirmed = () => make("email_not_confirmed", "Email not confirmed")
export const phoneNotConfirmed = () => make("phone_not_confirmed", "Phone not confirmed")
export const anonymousProviderDisabled = () =>
  make("anonymous_provider_disabled", "Anonymous sign-ins are disabled")
/** POST /resend by email with email sign-in off: Supabase Auth's 400. */
export const emailProviderDisabled = () => make("email_provider_disabled", "Email logins are disabled")
/** The password grant, /magiclink and /otp with email sign-in off: same text, but 422. */
export const emailLoginsDisabled = () => make("email_provider_disabled", "Email logins are disabled", 422)
export const emailSignupsDisabled = () => make("email_provider_disabled", "Email signups are disabled")
export const magicLinkDisabled = () =>
  make("email_provider_disabled", "Login with magic link is disabled", 422)
/** POST /resend by phone with phone sign-in off: Supabase Auth's 400. */
export const phoneProviderDisabled = () => make("phone_provider_disabled", "Phone logins are disabled")
/** POST /otp with a phone while phone sign-in is off: Supabase Auth's words there. */
export const unsupportedPhoneProvider = () => make("phone_provider_disabled", "Unsupported phone provider")
/** The password grant with phone sign-in off: same text, but 422. */
export const phoneLoginsDisabled = () => make("phone_provider_disabled", "Phone logins are disabled", 422)
export const phoneSignupsDisabled = () => make("phone_provider_disabled", "Phone signups are disabled")
export const manualLinkingDisabled = () => make("manual_linking_disabled", "Manual linking is disabled")
/** `link_identity` at the `id_token` grant without an `Authorization` header: Supabase Auth's OAuth-shaped refusal. */
export const linkingWithoutAccessToken = () =>
  oauth("invalid request", "Linking requires a valid user access token in Authorization", "no_authorization")
/** Every /sso path: the service has no SAML. */
export const samlDisabled = () => make("saml_provider_disabled", "SAML 2.0 is disabled")
/** `grant_type=web3`: the service has no Web3 sign-in. */
export const web3Disabled = () => make("web3_provider_disabled", "Web3 provider is disabled")

// The refresh-token grant

/** Supabase Auth checks the token's shape before looking it up; an absent token fails here too. */
export const refreshTokenNotValid = () => make("validation_failed", "Refresh token is not valid")
export const refreshTokenNotFound = () =>
  make("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
export const refreshTokenAlreadyUsed = () =>
  make("refresh_token_already_used", "Invalid Refresh Token: Already Used")
export const refreshTokenUserBanned = () => make("user_banned", "Invalid Refresh Token: User Banned", 400)
export const refreshTokenSessionNotFound = () =>
  make("session_not_found", "Invalid Refresh Token: No Valid Session Found", 400)

/**
 * Why a session can no longer be refreshed, as Supabase Auth's message says it: `lifetime` for
 * a session past its `not_after` or its timebox, which it words alike.
 */
export type SessionEnd = "lifetime" | "inactivity" | "low_aal" | "newer_login"

const sessionEndSuffix: Record<SessionEnd, string> = {
  lifetime: "",
  inactivity: " (Inactivity)",
  low_aal: " (Low AAL: User Needs MFA Verification)",
  newer_login: " (Revoked by Newer Login)"
}

export const refreshTokenSessionExpired = (end: SessionEnd) =>
  make("session_expired", `Invalid Refresh Token: Session Expired${sessionEndSuffix[end]}`)
/** Concurrent refreshes of one session kept its row locked for the whole retry window. */
export const refreshTokenContention = () =>
  make("conflict", "Too many concurrent token refresh requests on the same session or refresh token")

// PKCE

export const flowStateNotFound = () =>
  make("flow_state_not_found", "invalid flow state, no valid flow state found")
export const flowStateExpired = () => make("flow_state_expired", "invalid flow state, flow state has expired")
export const badCodeVerifier = () =>
  make("bad_code_verifier", "code challenge does not match previously saved code verifier")

// One-time codes, links and sending

export const otpExpired = () => make("otp_expired", "Token has expired or is invalid")
export const emailLinkExpired = () => make("otp_expired", "Email link is invalid or has expired")
/** POST /otp with `create_user: false` for an address that has no user. */
export const otpSignupsDisabled = () => make("otp_disabled", "Signups not allowed for otp")
export const overRequestRateLimit = () => make("over_request_rate_limit", "Request rate limit reached")
export const overEmailSendRateLimit = () => make("over_email_send_rate_limit", "email rate limit exceeded")
export const overSmsSendRateLimit = () => make("over_sms_send_rate_limit", "SMS rate limit exceeded")

/**
 * Supabase Auth's text for a send asked for again within the spacing (`SMTP_MAX_FREQUENCY`,
 * `SMS_MAX_FREQUENCY`): the whole seconds left, rounded down as its integer division does.
 */
const tooSoon = (secondsLeft: number) =>
  `For security purposes, you can only request this after ${Math.max(0, Math.floor(secondsLeft))} seconds.`
export const emailSentTooRecently = (secondsLeft: number) =>
  make("over_email_send_rate_limit", tooSoon(secondsLeft))
export const smsSentTooRecently = (secondsLeft: number) =>
  make("over_sms_send_rate_limit", tooSoon(secondsLeft))
/** `otpType` as Supabase Auth names it (`sms`, `phone_change`, …); `detail`: the gateway's error. */
export const smsSendFailed = (otpType: string, detail: string) =>
  make("sms_send_failed", `Error sending ${otpType} OTP to provider: ${detail}`)

// The signed-in user

export const reauthenticationNeeded = () =>
  make("reauthentication_needed", "Password update requires reauthentication")
export const reauthenticationNotValid = () =>
  make("reauthentication_not_valid", "Nonce has expired or is invalid")
/** GET /reauthenticate for a user with neither an email nor a phone number. */
export const reauthenticationWithoutContact = () =>
  make("validation_failed", "Reauthentication requires the user to have an email or a phone number")
/**
 * A code to text while no SMS gateway can send (`SMS_PROVIDER` unset, or naming a gateway this
 * service does not speak or whose credentials are empty): 422 `sms_send_failed`.
 */
export const smsNotAvailable = () => make("sms_send_failed", "Unable to get SMS provider", 422)
export const samePassword = () =>
  make("same_password", "New password should be different from the old password.")
export const currentPasswordRequired = () =>
  make("current_password_required", "Current password required when setting new password.")
/** Supabase Auth words a wrong current password exactly as a missing one. */
export const currentPasswordInvalid = () =>
  make("current_password_invalid", "Current password required when setting new password.")

/**
 * A failure Supabase Auth answers in OAuth's shape, with 400: `error` and `description` are
 * what the client reads; `code` only names it in logs.
 */
export const oauth = (error: string, description: string, code: ErrorCode) =>
  new AuthError({ code, message: description, oauthError: error })
