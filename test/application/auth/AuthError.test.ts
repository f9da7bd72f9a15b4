import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { ErrorCode } from "../../../adapters/http/auth/ErrorCode.js"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Refusal from "../../../adapters/http/auth/Refusal.js"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as BadJwt from "../../../domain/auth/BadJwt.js"
import * as PasswordPolicy from "../../../domain/PasswordPolicy.js"
import * as AuthJsErrorCodes from "./AuthJsErrorCodes.js"
import * as GoTrueErrorCodes from "./GoTrueErrorCodes.js"

const outOfScope: ReadonlyArray<string> = Object.values(GoTrueErrorCodes.outOfScope).flat()

describe("ErrorCode", () => {
  it("is Supabase Auth's catalogue, in its order, less the codes of features the service lacks", () => {
    const inScope = GoTrueErrorCodes.all.filter((code) => !outOfScope.includes(code))
    const clientOnly: ReadonlyArray<string> = AuthJsErrorCodes.recoveryCodes
    expect(ErrorCode.literals.filter((code) => !clientOnly.includes(code))).toEqual(inScope)
  })

  it("has auth-js's recovery-code codes, which Supabase Auth's server lacks, where auth-js lists them", () => {
    const all: ReadonlyArray<string> = GoTrueErrorCodes.all
    expect(AuthJsErrorCodes.recoveryCodes.filter((code) => all.includes(code))).toEqual([])
    const after = ErrorCode.literals.indexOf(AuthJsErrorCodes.recoveryCodesAfter)
    expect(ErrorCode.literals.slice(after + 1, after + 1 + AuthJsErrorCodes.recoveryCodes.length)).toEqual(
      AuthJsErrorCodes.recoveryCodes
    )
  })

  it("leaves out only codes the catalogue has, each once", () => {
    const all: ReadonlyArray<string> = GoTrueErrorCodes.all
    expect(outOfScope.filter((code) => !all.includes(code))).toEqual([])
    expect(new Set(outOfScope).size).toBe(outOfScope.length)
  })
})

describe("AuthError reasons, as ErrorResponse answers them", () => {
  // Supabase Auth's texts at bc32168, which clients show and sometimes match on.
  it.each([
    [new AuthError.InvalidCredentials(), "invalid_credentials", "Invalid login credentials"],
    [new Refusal.UnsupportedGrantType(), "invalid_credentials", "unsupported_grant_type"],
    [new AuthError.UserAlreadyRegistered(), "user_already_exists", "User already registered"],
    [new AuthError.SignupDisabled(), "signup_disabled", "Signups not allowed for this instance"],
    [new AuthError.NoBearerToken(), "no_authorization", "This endpoint requires a valid Bearer token"],
    [new AuthError.NotAdmin(), "not_admin", "User not allowed"],
    [new AuthError.UserIsBanned(), "user_banned", "User is banned"],
    [
      new AuthError.SessionFromJwtNotFound(),
      "session_not_found",
      "Session from session_id claim in JWT does not exist"
    ],
    [
      new AuthError.RefreshTokenUnknown(),
      "refresh_token_not_found",
      "Invalid Refresh Token: Refresh Token Not Found"
    ],
    [new AuthError.RefreshTokenReused(), "refresh_token_already_used", "Invalid Refresh Token: Already Used"],
    [new AuthError.MalformedRefreshToken(), "validation_failed", "Refresh token is not valid"],
    [
      new AuthError.EmailInUse(),
      "email_exists",
      "A user with this email address has already been registered"
    ],
    [new AuthError.PhoneInUse(), "phone_exists", "A user with this phone number has already been registered"],
    [new AuthError.EmailRequired(), "validation_failed", "An email address is required"],
    [new AuthError.PhoneInUseByAnother(), "phone_exists", "Phone number already registered by another user"],
    [new AuthError.NoSuchUser(), "user_not_found", "User not found"],
    [
      new AuthError.AnonymousSignInsDisabled(),
      "anonymous_provider_disabled",
      "Anonymous sign-ins are disabled"
    ],
    [new AuthError.EmailResendDisabled(), "email_provider_disabled", "Email logins are disabled"],
    [new AuthError.PhoneResendDisabled(), "phone_provider_disabled", "Phone logins are disabled"],
    [new AuthError.ManualLinkingDisabled(), "manual_linking_disabled", "Manual linking is disabled"],
    [new Refusal.SamlDisabled(), "saml_provider_disabled", "SAML 2.0 is disabled"],
    [new Refusal.Web3Disabled(), "web3_provider_disabled", "Web3 provider is disabled"],
    [new AuthError.OtpExpired(), "otp_expired", "Token has expired or is invalid"],
    [new Refusal.OverRequestRateLimit(), "over_request_rate_limit", "Request rate limit reached"],
    [new AuthError.MalformedEmail(), "validation_failed", "Unable to validate email address: invalid format"],
    [new AuthError.MalformedPhone(), "validation_failed", "Invalid phone number format (E.164 required)"],
    [
      new AuthError.ReauthenticationWithoutContact(),
      "validation_failed",
      "Reauthentication requires the user to have an email or a phone number"
    ],
    [
      new Refusal.BadJson({ detail: "unexpected end" }),
      "bad_json",
      "Could not parse request body as JSON: unexpected end"
    ],
    [
      new BadJwt.BadJwt({
        reason: "expired",
        message:
          "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired"
      }),
      "bad_jwt",
      "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired"
    ],
    [
      new AuthError.RefreshSessionEnded({ end: "inactivity" }),
      "session_expired",
      "Invalid Refresh Token: Session Expired (Inactivity)"
    ],
    [
      new AuthError.RefreshSessionEnded({ end: "lifetime" }),
      "session_expired",
      "Invalid Refresh Token: Session Expired"
    ],
    [
      new AuthError.SentTooRecently({ channel: "email", secondsLeft: 41.9 }),
      "over_email_send_rate_limit",
      "For security purposes, you can only request this after 41 seconds."
    ],
    // Factors, recovery codes and passkeys (mfa.go, admin.go, passkey_*.go, middleware.go).
    [new AuthError.MalformedFactorId(), "validation_failed", "factor_id must be an UUID"],
    [new AuthError.FactorNotFound(), "mfa_factor_not_found", "Factor not found"],
    [
      new AuthError.ChallengeNotFound(),
      "mfa_factor_not_found",
      "MFA factor with the provided challenge ID not found"
    ],
    [
      new AuthError.FactorEnrollDisabled({ factorType: "totp" }),
      "mfa_totp_enroll_not_enabled",
      "MFA enroll is disabled for TOTP"
    ],
    [
      new AuthError.FactorEnrollDisabled({ factorType: "phone" }),
      "mfa_phone_enroll_not_enabled",
      "MFA enroll is disabled for Phone"
    ],
    [
      new AuthError.FactorEnrollDisabled({ factorType: "webauthn" }),
      "mfa_webauthn_enroll_not_enabled",
      "MFA enroll is disabled for WebAuthn"
    ],
    [
      new AuthError.FactorEnrollDisabled({ factorType: "recovery_code" }),
      "mfa_recovery_codes_enroll_not_enabled",
      "MFA enroll is disabled for Recovery Codes"
    ],
    [
      new AuthError.FactorVerifyDisabled({ factorType: "totp", at: "verify" }),
      "mfa_totp_verify_not_enabled",
      "MFA verification is disabled for TOTP"
    ],
    [
      new AuthError.FactorVerifyDisabled({ factorType: "phone", at: "challenge" }),
      "mfa_phone_verify_not_enabled",
      "MFA verification is disabled for Phone"
    ],
    [
      new AuthError.FactorVerifyDisabled({ factorType: "webauthn", at: "challenge" }),
      "mfa_webauthn_verify_not_enabled",
      "MFA verification is disabled for WebAuthn"
    ],
    // Supabase Auth's VerifyFactor answers with the enrolment's code for WebAuthn.
    [
      new AuthError.FactorVerifyDisabled({ factorType: "webauthn", at: "verify" }),
      "mfa_webauthn_enroll_not_enabled",
      "MFA verification is disabled for WebAuthn"
    ],
    [
      new AuthError.FactorVerifyDisabled({ factorType: "recovery_code", at: "verify" }),
      "mfa_recovery_codes_verify_not_enabled",
      "MFA verification is disabled for Recovery Codes"
    ],
    [
      new AuthError.VerifiedPhoneFactorExists(),
      "mfa_verified_factor_exists",
      "A verified phone factor already exists, unenroll the existing factor to continue"
    ],
    [
      new AuthError.FactorNameConflict({ friendlyName: "" }),
      "mfa_factor_name_conflict",
      'A factor with the friendly name "" for this user already exists'
    ],
    [
      new AuthError.FactorNameConflict({ friendlyName: 'My "key"\\\nphone\u0007\u007fé' }),
      "mfa_factor_name_conflict",
      'A factor with the friendly name "My \\"key\\"\\\\\\nphone\\a\\x7fé" for this user already exists'
    ],
    [
      new AuthError.TooManyFactors(),
      "too_many_enrolled_mfa_factors",
      "Maximum number of verified factors reached, unenroll to continue"
    ],
    [
      new AuthError.Aal2Required({ action: "enroll" }),
      "insufficient_aal",
      "AAL2 required to enroll a new factor"
    ],
    [
      new AuthError.Aal2Required({ action: "unenroll" }),
      "insufficient_aal",
      "AAL2 required to unenroll verified factor"
    ],
    [
      new AuthError.Aal2Required({ action: "update_user" }),
      "insufficient_aal",
      "AAL2 session is required to update email or password when MFA is enabled."
    ],
    [
      new AuthError.Aal2Required({ action: "manage_passkeys" }),
      "insufficient_aal",
      "AAL2 session is required to manage passkeys when MFA is enabled"
    ],
    [
      new AuthError.ChallengeUsedOrMoved(),
      "mfa_ip_address_mismatch",
      "Challenge and verify IP addresses mismatch."
    ],
    [
      new AuthError.FactorChallengeExpired({ challengeId: "0b6b2f4e-1f7a-4c5e-9a51-0f7d1f2d3c4b" }),
      "mfa_challenge_expired",
      "MFA challenge 0b6b2f4e-1f7a-4c5e-9a51-0f7d1f2d3c4b has expired, verify against another challenge or create a new challenge."
    ],
    [
      new AuthError.FactorVerificationFailed({ factorType: "totp" }),
      "mfa_verification_failed",
      "Invalid TOTP code entered"
    ],
    [
      new AuthError.FactorVerificationFailed({ factorType: "phone" }),
      "mfa_verification_failed",
      "Invalid MFA Phone code entered"
    ],
    [
      new AuthError.FactorVerificationFailed({ factorType: "webauthn" }),
      "mfa_verification_failed",
      "Failed to validate WebAuthn MFA response"
    ],
    [
      new AuthError.FactorVerificationRejected({ message: "Too many attempts" }),
      "mfa_verification_rejected",
      "Too many attempts"
    ],
    [new AuthError.PasskeysDisabled(), "passkey_disabled", "Passkeys are disabled"],
    [new AuthError.TooManyPasskeys(), "too_many_passkeys", "Maximum number of passkeys reached"],
    [new AuthError.SsoUserPasskey(), "validation_failed", "SSO users cannot register passkeys"],
    [new AuthError.PasskeyNotFound(), "validation_failed", "Passkey not found"],
    [
      new AuthError.WebAuthnChallengeNotFound(),
      "webauthn_challenge_not_found",
      "Challenge not found or already used"
    ],
    [new AuthError.WebAuthnChallengeExpired(), "webauthn_challenge_expired", "Challenge has expired"],
    [
      new AuthError.WebAuthnVerificationFailed({ failure: "unparsable" }),
      "webauthn_verification_failed",
      "Invalid credential response"
    ],
    [
      new AuthError.WebAuthnVerificationFailed({ failure: "refused" }),
      "webauthn_verification_failed",
      "Credential verification failed"
    ],
    [
      new AuthError.WebAuthnCredentialExists(),
      "webauthn_credential_exists",
      "This credential is already registered"
    ]
  ])("%#: %s / %s", (reason, code, message) => {
    const answer = ErrorResponse.describe(reason)
    expect(answer.code).toBe(code)
    expect(answer.message).toBe(message)
  })

  // The input a request is refused for: 400 validation_failed, in Supabase Auth's words, each.
  it.each<readonly [ErrorResponse.Reason, string]>([
    [new AuthError.EmailTooLong(), "An email address is too long"],
    [new AuthError.RecoveryWithoutEmail(), "Password recovery requires an email"],
    [
      new AuthError.EmailAndPhoneGiven({ at: "signup" }),
      "Only an email address or phone number should be provided on signup."
    ],
    [
      new AuthError.EmailAndPhoneGiven({ at: "login" }),
      "Only an email address or phone number should be provided on login."
    ],
    [
      new AuthError.EmailAndPhoneGiven({ at: "resend" }),
      "Only an email address or phone number should be provided."
    ],
    [
      new AuthError.EmailAndPhoneGiven({ at: "verify" }),
      "Only an email address or phone number should be provided on verify"
    ],
    [
      new AuthError.ResendRequestInvalid({ problem: "unknown_type" }),
      "Missing one of these types: signup, email_change, sms, phone_change"
    ],
    [
      new AuthError.ResendRequestInvalid({ problem: "email_missing" }),
      "Type provided requires an email address"
    ],
    [
      new AuthError.ResendRequestInvalid({ problem: "phone_missing" }),
      "Type provided requires a phone number"
    ],
    [new AuthError.VerifyRequestInvalid({ problem: "type_missing" }), "Verify requires a verification type"],
    [new AuthError.VerifyRequestInvalid({ problem: "type_unsupported" }), "Unsupported verification type"],
    [
      new AuthError.VerifyRequestInvalid({ problem: "token_missing" }),
      "Verify requires a token or a token hash"
    ],
    [
      new AuthError.VerifyRequestInvalid({ problem: "token_and_hash" }),
      "Verify requires either a token or a token hash"
    ],
    [
      new AuthError.VerifyRequestInvalid({ problem: "hash_with_contact" }),
      "Only the token_hash and type should be provided"
    ],
    [
      new AuthError.SmsChannelUnsupported(),
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider."
    ],
    [new AuthError.TokenAudienceMismatch(), "Token audience doesn't match request audience"],
    [new AuthError.SignupWithoutPassword(), "Signup requires a valid password"],
    [new AuthError.LoginWithoutContact(), "missing email or phone"],
    [
      new AuthError.PkceParamsInvalid({ problem: "unpaired" }),
      "PKCE flow requires code_challenge_method and code_challenge"
    ],
    [
      new AuthError.PkceParamsInvalid({ problem: "challenge_length" }),
      "code challenge has to be between 43 and 128 characters"
    ],
    [
      new AuthError.PkceParamsInvalid({ problem: "challenge_characters" }),
      "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"
    ],
    [
      new AuthError.PkceParamsInvalid({ problem: "method_unsupported" }),
      "code challenge method not supported"
    ],
    [new AuthError.PkceParamsInvalid({ problem: "phone_signup" }), "PKCE not supported for phone signups"],
    [
      new AuthError.PkceParamsInvalid({ problem: "exchange_incomplete" }),
      "invalid request: both auth code and code verifier should be non-empty"
    ],
    [
      new AuthError.UnsupportedProvider({ provider: "myspace", problem: "not_found" }),
      "Unsupported provider: Provider myspace could not be found"
    ],
    [
      new AuthError.UnsupportedProvider({ provider: "github", problem: "not_enabled" }),
      "Unsupported provider: provider is not enabled"
    ],
    [
      new AuthError.UnsupportedProvider({ provider: "custom:a", problem: "custom_providers_disabled" }),
      "Unsupported provider: custom OAuth providers are disabled"
    ],
    [
      new AuthError.UnsupportedProvider({ provider: "custom:a", problem: "custom_not_found" }),
      "Unsupported provider: custom provider custom:a not found"
    ],
    [
      new AuthError.UnsupportedProvider({ provider: "custom:a", problem: "custom_disabled" }),
      "Unsupported provider: custom provider custom:a is disabled"
    ],
    [
      new AuthError.ProviderMisconfigured({ detail: "missing OAuth secret" }),
      "Unsupported provider: missing OAuth secret"
    ],
    [
      new AuthError.IdTokenProviderUnsupported({ provider: "Custom:A", problem: "not_allowed" }),
      'Custom OIDC provider "Custom:A" not allowed'
    ],
    [
      new AuthError.IdTokenProviderUnsupported({
        provider: "custom:a",
        problem: "custom_providers_disabled"
      }),
      "Custom OAuth providers are disabled"
    ],
    [
      new AuthError.IdTokenProviderUnsupported({ provider: "custom:a", problem: "custom_not_found" }),
      'Custom provider "custom:a" not found'
    ],
    [
      new AuthError.IdTokenProviderUnsupported({ provider: "custom:a", problem: "not_oidc" }),
      'Provider "custom:a" is not an OIDC provider'
    ],
    [
      new AuthError.IdTokenIssuerRefused({ message: "Provided issuer does not match ID token issuer" }),
      "Provided issuer does not match ID token issuer"
    ],
    [
      new AuthError.AdminUserInvalid({ problem: "no_contact" }),
      "Cannot create a user without either an email or phone"
    ],
    [
      new AuthError.AdminUserInvalid({ problem: "password_and_hash" }),
      "Only a password or a password hash should be provided"
    ],
    [new AuthError.AdminUserInvalid({ problem: "hash_format" }), "Invalid password hash format"],
    [new AuthError.AdminUserInvalid({ problem: "id_not_uuid" }), "ID must conform to the uuid v4 format"],
    [new AuthError.AdminUserInvalid({ problem: "id_nil" }), "ID cannot be a nil uuid"],
    [
      new AuthError.BanDurationInvalid({ message: 'time: invalid duration "x"' }),
      'invalid format for ban duration: time: invalid duration "x"'
    ],
    [new AuthError.LinkTypeInvalid({ type: "other" }), "Invalid email action link type requested: other"],
    [
      new AuthError.CurrentEmailLinkNeedsSecureChange(),
      "Enable secure email change to generate link for current email"
    ],
    [new AuthError.CustomProviderTypeInvalid(), "type must be either 'oauth2' or 'oidc'"],
    [new AuthError.CustomProviderInvalid({ message: "name is required" }), "name is required"],
    [new AuthError.ProviderEndpointRefused({ message: "the URL must use https" }), "the URL must use https"],
    [new AuthError.FactorTypeUnsupported(), "factor_type needs to be totp, phone, or webauthn"],
    [new AuthError.FactorCodeMissing(), "Code needs to be non-empty"],
    [new AuthError.FactorPhoneMissing(), "Phone number required to enroll Phone factor"],
    [new AuthError.WebAuthnParamsInvalid({ problem: "missing" }), "WebAuthn config required"],
    [new AuthError.WebAuthnParamsInvalid({ problem: "type" }), "WebAuthn type must be create or request"],
    [new AuthError.WebAuthnParamsInvalid({ problem: "response_missing" }), "credential_response required"],
    [new AuthError.WebAuthnParamsInvalid({ problem: "response_malformed" }), "Invalid credential_response"],
    [new AuthError.PasskeyVerifyInvalid({ problem: "challenge_id_missing" }), "challenge_id is required"],
    [new AuthError.PasskeyVerifyInvalid({ problem: "credential_missing" }), "credential is required"],
    [
      new AuthError.PasskeyVerifyInvalid({ problem: "challenge_id_not_uuid" }),
      "challenge_id must be a valid UUID"
    ],
    [new AuthError.PasskeyNameInvalid({ problem: "missing" }), "friendly_name is required"],
    [
      new AuthError.PasskeyNameInvalid({ problem: "too_long" }),
      "friendly_name must be 120 characters or less"
    ],
    [
      new Refusal.OtpRequestInvalid({ problem: "email_and_phone" }),
      "Only an email address or phone number should be provided"
    ],
    [
      new Refusal.OtpRequestInvalid({ problem: "channel_with_email" }),
      "Channel should only be specified with Phone OTP"
    ],
    [new Refusal.OtpRequestInvalid({ problem: "no_contact" }), "One of email or phone must be set"],
    [new Refusal.LogoutScopeUnsupported({ scope: "all" }), 'Unsupported logout scope "all"'],
    [
      new Refusal.PaginationInvalid({ value: "x", outOfRange: false }),
      'Bad Pagination Parameters: strconv.ParseUint: parsing "x": invalid syntax'
    ],
    [
      new Refusal.PaginationInvalid({ value: "18446744073709551616", outOfRange: true }),
      'Bad Pagination Parameters: strconv.ParseUint: parsing "18446744073709551616": value out of range'
    ],
    [
      new Refusal.SortInvalid({ part: "field", value: "email" }),
      "Bad Sort Parameters: bad field for sort 'email'"
    ],
    [
      new Refusal.SortInvalid({ part: "direction", value: "up" }),
      "Bad Sort Parameters: bad direction for sort 'up', only 'asc' and 'desc' allowed"
    ]
  ])("%#: refused input, %s", (reason, message) => {
    expect(ErrorResponse.describe(reason)).toEqual({ status: 400, code: "validation_failed", message })
  })

  it("answers an oversized body as request_entity_too_large, naming the limit", () => {
    const body = JSON.parse(ErrorResponse.problems.tooLarge(1_048_576).body ?? "")
    expect([body.error_code, body.msg]).toEqual([
      "request_entity_too_large",
      "Request body too large (max 1048576 bytes)"
    ])
  })

  it("gives a status of its own only where Supabase Auth departs from the code's usual one", () => {
    const statusOf = (reason: ErrorResponse.Reason) => ErrorResponse.describe(reason).status
    expect(statusOf(new AuthError.UserIsBanned())).toBe(ErrorResponse.statusOf.user_banned)
    expect(statusOf(new AuthError.PasswordGrantUserBanned())).toBe(400)
    expect(statusOf(new AuthError.RefreshTokenUserBanned())).toBe(400)
    expect(statusOf(new AuthError.SubClaimNotUuid())).toBe(400)
    expect(statusOf(new AuthError.UserFromJwtNotFound())).toBe(403)
    expect(statusOf(new AuthError.EmailLoginsDisabled())).toBe(422)
  })

  it("answers factor and passkey refusals with Supabase Auth's status for each place", () => {
    const statusOf = (reason: ErrorResponse.Reason) => ErrorResponse.describe(reason).status
    expect(statusOf(new AuthError.MalformedFactorId())).toBe(404)
    expect(statusOf(new AuthError.FactorNotFound())).toBe(404)
    expect(statusOf(new AuthError.ChallengeNotFound())).toBe(422)
    expect(statusOf(new AuthError.FactorEnrollDisabled({ factorType: "webauthn" }))).toBe(422)
    expect(statusOf(new AuthError.FactorNameConflict({ friendlyName: "a" }))).toBe(422)
    expect(statusOf(new AuthError.TooManyFactors())).toBe(422)
    expect(statusOf(new AuthError.Aal2Required({ action: "enroll" }))).toBe(403)
    expect(statusOf(new AuthError.Aal2Required({ action: "unenroll" }))).toBe(422)
    expect(statusOf(new AuthError.Aal2Required({ action: "update_user" }))).toBe(401)
    expect(statusOf(new AuthError.Aal2Required({ action: "manage_passkeys" }))).toBe(403)
    expect(statusOf(new AuthError.Aal2Required({ action: "manage_recovery_codes" }))).toBe(403)
    expect(statusOf(new AuthError.ChallengeUsedOrMoved())).toBe(422)
    expect(statusOf(new AuthError.FactorChallengeExpired({ challengeId: "x" }))).toBe(422)
    expect(statusOf(new AuthError.FactorVerificationFailed({ factorType: "webauthn" }))).toBe(422)
    expect(statusOf(new AuthError.FactorVerificationRejected({ message: "no" }))).toBe(403)
    expect(statusOf(new AuthError.RecoveryCodesSoleFactor())).toBe(422)
    expect(statusOf(new AuthError.RecoveryCodesExist())).toBe(422)
    expect(statusOf(new AuthError.RecoveryCodesLocked({ secondsLeft: 90 }))).toBe(429)
    expect(statusOf(new AuthError.PasskeysDisabled())).toBe(404)
    expect(statusOf(new AuthError.TooManyPasskeys())).toBe(422)
    expect(statusOf(new AuthError.SsoUserPasskey())).toBe(422)
    expect(statusOf(new AuthError.PasskeyNotFound())).toBe(404)
    expect(statusOf(new AuthError.WebAuthnChallengeNotFound())).toBe(400)
    expect(statusOf(new AuthError.WebAuthnChallengeExpired())).toBe(400)
    expect(statusOf(new AuthError.WebAuthnVerificationFailed({ failure: "refused" }))).toBe(400)
    expect(statusOf(new AuthError.WebAuthnCredentialExists())).toBe(422)
    expect(ErrorResponse.describe(new AuthError.RecoveryCodesLocked({ secondsLeft: 89.2 })).message).toBe(
      "Too many invalid recovery codes entered, try again after 90 seconds."
    )
  })

  it("carries a password policy's reasons and message into weak_password", () => {
    const policy = PasswordPolicy.make({ minLength: 8, requiredCharacters: "0123456789" })
    const refused = Either.flip(PasswordPolicy.check(policy, "short"))
    const weak = Either.getOrThrow(Either.map(refused, ErrorResponse.describe))
    expect(weak.code).toBe("weak_password")
    expect(weak.reasons).toEqual(["length", "characters"])
    expect(weak.message).toBe(
      "Password should be at least 8 characters. Password should contain at least one character of each: 0123456789."
    )
  })

  it("marks OAuth-shaped failures with their OAuth error", () => {
    const answer = ErrorResponse.describe(
      new AuthError.ProviderRefused({ error: "invalid_request", description: "refresh_token required" })
    )
    expect(answer.oauthError).toBe("invalid_request")
    expect(answer.message).toBe("refresh_token required")
  })

  it.effect("is a typed failure use cases can fail with and callers can catch by tag", () =>
    Effect.gen(function* () {
      const caught = yield* Effect.fail(new AuthError.InvalidCredentials()).pipe(
        Effect.catchTag("InvalidCredentials", (reason) => Effect.succeed(ErrorResponse.describe(reason).code))
      )
      expect(caught).toBe("invalid_credentials")
    })
  )
})
