import * as Schema from "effect/Schema"
import type { BadJwt } from "../../domain/auth/BadJwt.js"
import type { WeakPassword } from "../../domain/PasswordPolicy.js"

/**
 * Why an auth use case refused: one tagged error per reason, carrying what its message needs.
 * A reason says what went wrong, never how a protocol answers it: the HTTP status, Supabase
 * Auth's `error_code` and the text a client sees are adapters/http/auth/ErrorResponse.ts's one
 * table, which names every reason here (the compiler holds it to that). A use case's error
 * type lists the reasons it can raise, so a reader sees its refusals in its signature.
 *
 * Two errors of the domain are reasons as they are: `BadJwt` (a bearer token that does not
 * verify) and `PasswordPolicy.WeakPassword` (a password the policy refuses, with its reasons).
 *
 * Tags differ from the ports' errors of similar meaning (`UserRepository.EmailExists`, …): a
 * port's error says what storage found, and each use case decides which reason it means.
 */

const reason = <Self>() => Schema.TaggedError<Self>()

// Requests and their input

export class MalformedEmail extends reason<MalformedEmail>()("MalformedEmail", {}) {}
/** An email address over 255 characters once trimmed, where Supabase Auth stops reading it as one. */
export class EmailTooLong extends reason<EmailTooLong>()("EmailTooLong", {}) {}
/** An endpoint that needs an address was given an empty one. */
export class EmailRequired extends reason<EmailRequired>()("EmailRequired", {}) {}
export class MalformedPhone extends reason<MalformedPhone>()("MalformedPhone", {}) {}
/** The `{user_id}` of an admin path is not a UUID. */
export class MalformedUserId extends reason<MalformedUserId>()("MalformedUserId", {}) {}
/** PUT /user setting a password on an anonymous user while giving no email or phone. */
export class AnonymousPasswordWithoutContact extends reason<AnonymousPasswordWithoutContact>()(
  "AnonymousPasswordWithoutContact",
  {}
) {}
/** POST /magiclink without an email. */
export class MagicLinkWithoutEmail extends reason<MagicLinkWithoutEmail>()("MagicLinkWithoutEmail", {}) {}
/** POST /recover without an email. */
export class RecoveryWithoutEmail extends reason<RecoveryWithoutEmail>()("RecoveryWithoutEmail", {}) {}
/**
 * A request that takes one contact, an email address or a phone number, named both; `at` picks
 * Supabase Auth's wording for that place. At a verify, also a contact other than the one its
 * type sends to (a phone for a mailed type, an email for a texted one).
 */
export class EmailAndPhoneGiven extends reason<EmailAndPhoneGiven>()("EmailAndPhoneGiven", {
  at: Schema.Literal("signup", "login", "resend", "verify")
}) {}
/**
 * POST /resend whose `type` is none of `signup`, `email_change`, `sms`, `phone_change`
 * (`unknown_type`), or without the contact its type sends to.
 */
export class ResendRequestInvalid extends reason<ResendRequestInvalid>()("ResendRequestInvalid", {
  problem: Schema.Literal("unknown_type", "email_missing", "phone_missing")
}) {}
/**
 * POST /verify (or GET) without a type, with one it does not know, without a token or token
 * hash, with both, or with a token hash and a contact.
 */
export class VerifyRequestInvalid extends reason<VerifyRequestInvalid>()("VerifyRequestInvalid", {
  problem: Schema.Literal(
    "type_missing",
    "type_unsupported",
    "token_missing",
    "token_and_hash",
    "hash_with_contact"
  )
}) {}
/** A `channel` other than `sms` or `whatsapp`, or `whatsapp` on a gateway that cannot send it. */
export class SmsChannelUnsupported extends reason<SmsChannelUnsupported>()("SmsChannelUnsupported", {}) {}
/** GET /reauthenticate for a user with neither an email nor a phone number. */
export class ReauthenticationWithoutContact extends reason<ReauthenticationWithoutContact>()(
  "ReauthenticationWithoutContact",
  {}
) {}
export class CaptchaMissing extends reason<CaptchaMissing>()("CaptchaMissing", {}) {}
/** The captcha provider refused the token, with its own error codes. */
export class CaptchaRefused extends reason<CaptchaRefused>()("CaptchaRefused", {
  errorCodes: Schema.Array(Schema.String)
}) {}
/** The captcha provider could not be asked. */
export class CaptchaUnverifiable extends reason<CaptchaUnverifiable>()("CaptchaUnverifiable", {}) {}

// Bearer tokens and roles

/** A request that needs an access token carries none. */
export class NoBearerToken extends reason<NoBearerToken>()("NoBearerToken", {}) {}
export class MalformedSessionIdClaim extends reason<MalformedSessionIdClaim>()(
  "MalformedSessionIdClaim",
  {}
) {}
export class MissingSubClaim extends reason<MissingSubClaim>()("MissingSubClaim", {}) {}
export class SubClaimNotUuid extends reason<SubClaimNotUuid>()("SubClaimNotUuid", {}) {}
/** A verified token whose `sub` names no user (deleted since). */
export class UserFromJwtNotFound extends reason<UserFromJwtNotFound>()("UserFromJwtNotFound", {}) {}
/** A verified token whose `session_id` names no session: the user signed out elsewhere. */
export class SessionFromJwtNotFound extends reason<SessionFromJwtNotFound>()("SessionFromJwtNotFound", {}) {}
/** An admin token of a session past one of its limits (`Session.validity`). */
export class SessionNoLongerValid extends reason<SessionNoLongerValid>()("SessionNoLongerValid", {}) {}
/** A signed-in user who is banned, on any request but the two grants below. */
export class UserIsBanned extends reason<UserIsBanned>()("UserIsBanned", {}) {}
/** The caller's role is not an admin role. */
export class NotAdmin extends reason<NotAdmin>()("NotAdmin", {}) {}
/** PUT /user with `app_metadata` by a user who is not an admin. */
export class AppMetadataNeedsAdmin extends reason<AppMetadataNeedsAdmin>()("AppMetadataNeedsAdmin", {}) {}

// Sign-up and sign-in

export class SignupDisabled extends reason<SignupDisabled>()("SignupDisabled", {}) {}
/** A sign-up for a confirmed user while confirmations are automatic. */
export class UserAlreadyRegistered extends reason<UserAlreadyRegistered>()("UserAlreadyRegistered", {}) {}
export class EmailInUse extends reason<EmailInUse>()("EmailInUse", {}) {}
export class PhoneInUse extends reason<PhoneInUse>()("PhoneInUse", {}) {}
/** An administrator's new user with a number another user has (its own message there). */
export class PhoneInUseByAnother extends reason<PhoneInUseByAnother>()("PhoneInUseByAnother", {}) {}
/** An external provider's address, taken by another user, for the user it is linked to. */
export class LinkedEmailInUse extends reason<LinkedEmailInUse>()("LinkedEmailInUse", {}) {}
/** A sign-up (or an admin's `signup` link for a new user) without a password. */
export class SignupWithoutPassword extends reason<SignupWithoutPassword>()("SignupWithoutPassword", {}) {}
/** The password grant with neither an email nor a phone number. */
export class LoginWithoutContact extends reason<LoginWithoutContact>()("LoginWithoutContact", {}) {}
/** GET /user with a token issued for another audience than the service's. */
export class TokenAudienceMismatch extends reason<TokenAudienceMismatch>()("TokenAudienceMismatch", {}) {}
/** A user looked up by id that is not there, or was deleted while a sign-in or link ran. */
export class NoSuchUser extends reason<NoSuchUser>()("NoSuchUser", {}) {}
/** An admin's link for an address no user has. */
export class NoUserWithEmail extends reason<NoUserWithEmail>()("NoUserWithEmail", {}) {}
export class InvalidCredentials extends reason<InvalidCredentials>()("InvalidCredentials", {}) {}
/** The password grant for a banned user. */
export class PasswordGrantUserBanned extends reason<PasswordGrantUserBanned>()(
  "PasswordGrantUserBanned",
  {}
) {}
/** The password grant for an address or number not yet confirmed. */
export class EmailNotConfirmed extends reason<EmailNotConfirmed>()("EmailNotConfirmed", {}) {}
export class PhoneNotConfirmed extends reason<PhoneNotConfirmed>()("PhoneNotConfirmed", {}) {}
export class AnonymousSignInsDisabled extends reason<AnonymousSignInsDisabled>()(
  "AnonymousSignInsDisabled",
  {}
) {}
/** A method (email or phone) that is off, by where it was asked for. */
export class EmailLoginsDisabled extends reason<EmailLoginsDisabled>()("EmailLoginsDisabled", {}) {}
export class EmailSignupsDisabled extends reason<EmailSignupsDisabled>()("EmailSignupsDisabled", {}) {}
export class EmailResendDisabled extends reason<EmailResendDisabled>()("EmailResendDisabled", {}) {}
export class PhoneLoginsDisabled extends reason<PhoneLoginsDisabled>()("PhoneLoginsDisabled", {}) {}
export class PhoneSignupsDisabled extends reason<PhoneSignupsDisabled>()("PhoneSignupsDisabled", {}) {}
export class PhoneResendDisabled extends reason<PhoneResendDisabled>()("PhoneResendDisabled", {}) {}
/** POST /otp with a phone while phone sign-in is off. */
export class PhoneOtpDisabled extends reason<PhoneOtpDisabled>()("PhoneOtpDisabled", {}) {}
/** The user or the new user could not be written: storage refused what it should take. */
export class UserNotSaved extends reason<UserNotSaved>()("UserNotSaved", {
  /** `new`: a user being created; `update`: one being changed. */
  write: Schema.Literal("new", "update")
}) {}

// External providers and identities

export class ManualLinkingDisabled extends reason<ManualLinkingDisabled>()("ManualLinkingDisabled", {}) {}
/** `link_identity` at the `id_token` grant without an `Authorization` header. */
export class LinkingWithoutAccessToken extends reason<LinkingWithoutAccessToken>()(
  "LinkingWithoutAccessToken",
  {}
) {}
/** The provider's account is already linked, to this user or another. */
export class IdentityAlreadyLinked extends reason<IdentityAlreadyLinked>()("IdentityAlreadyLinked", {
  toAnotherUser: Schema.Boolean
}) {}
/** The provider's address is unverified: a confirmation mail went out instead of a session. */
export class UnverifiedProviderEmail extends reason<UnverifiedProviderEmail>()("UnverifiedProviderEmail", {
  provider: Schema.String,
  /** A link to the signed-in user rather than a sign-in. */
  linking: Schema.Boolean,
  /** Whether a confirmation mail went out; not when the provider gave no address at all. */
  mailed: Schema.optionalWith(Schema.Boolean, { default: () => true })
}) {}
export class LastIdentity extends reason<LastIdentity>()("LastIdentity", {}) {}
export class IdentityNotFound extends reason<IdentityNotFound>()("IdentityNotFound", {}) {}
/** Unlinking would give the user an address another user has. */
export class UnlinkEmailConflict extends reason<UnlinkEmailConflict>()("UnlinkEmailConflict", {}) {}
/**
 * A sign-in at a provider that is unknown or off: `not_found` a built-in name the service does
 * not know, `not_enabled` one that is off; for a `custom:` provider, the feature off, or the
 * provider unknown or off.
 */
export class UnsupportedProvider extends reason<UnsupportedProvider>()("UnsupportedProvider", {
  provider: Schema.String,
  problem: Schema.Literal(
    "not_found",
    "not_enabled",
    "custom_providers_disabled",
    "custom_not_found",
    "custom_disabled"
  )
}) {}
/**
 * A sign-in through the page of a provider enabled without a setting it needs; `detail` says
 * which, in Supabase Auth's words (`missing OAuth secret`).
 */
export class ProviderMisconfigured extends reason<ProviderMisconfigured>()("ProviderMisconfigured", {
  detail: Schema.String
}) {}
/** The provider could not be reached to start a sign-in. */
export class ProviderUnreachable extends reason<ProviderUnreachable>()("ProviderUnreachable", {
  provider: Schema.String
}) {}
/** The callback came without a `state`. */
export class OAuthStateMissing extends reason<OAuthStateMissing>()("OAuthStateMissing", {}) {}
/** The callback's `state` is unknown, used or expired. */
export class OAuthStateNotFound extends reason<OAuthStateNotFound>()("OAuthStateNotFound", {}) {}
/** The provider answered the callback with its own error, passed on in its words. */
export class ProviderRefused extends reason<ProviderRefused>()("ProviderRefused", {
  error: Schema.String,
  description: Schema.String
}) {}
/** The provider did not give the profile, or gave none with an address where one is needed. */
export class ProviderProfileUnavailable extends reason<ProviderProfileUnavailable>()(
  "ProviderProfileUnavailable",
  {
    missing: Schema.Literal("profile", "email")
  }
) {}
/** A `grant_type=id_token` request or token this service cannot take; `message` says why. */
export class IdTokenRefused extends reason<IdTokenRefused>()("IdTokenRefused", {
  /** The nonce's mismatch is its own OAuth error; every other refusal is an invalid request. */
  nonceMismatch: Schema.Boolean,
  message: Schema.String
}) {}
/**
 * `grant_type=id_token` for a provider whose ID tokens are not taken: `not_allowed` one with no
 * issuer to check them against; for a `custom:` provider, the feature off, the provider unknown,
 * or one that is not OpenID Connect.
 */
export class IdTokenProviderUnsupported extends reason<IdTokenProviderUnsupported>()(
  "IdTokenProviderUnsupported",
  {
    provider: Schema.String,
    problem: Schema.Literal("not_allowed", "custom_providers_disabled", "custom_not_found", "not_oidc")
  }
) {}
/** The issuer of an ID token cannot be told or is not the provider's, in the domain's words. */
export class IdTokenIssuerRefused extends reason<IdTokenIssuerRefused>()("IdTokenIssuerRefused", {
  message: Schema.String
}) {}
/** The ID token's provider is known but off. */
export class IdTokenProviderDisabled extends reason<IdTokenProviderDisabled>()("IdTokenProviderDisabled", {
  message: Schema.String
}) {}

// The refresh-token grant

/** Supabase Auth checks the token's shape before looking it up; an absent token fails here too. */
export class MalformedRefreshToken extends reason<MalformedRefreshToken>()("MalformedRefreshToken", {}) {}
export class RefreshTokenUnknown extends reason<RefreshTokenUnknown>()("RefreshTokenUnknown", {}) {}
export class RefreshTokenReused extends reason<RefreshTokenReused>()("RefreshTokenReused", {}) {}
export class RefreshTokenUserBanned extends reason<RefreshTokenUserBanned>()("RefreshTokenUserBanned", {}) {}

/**
 * Why a session can no longer be refreshed: `lifetime` for a session past its `not_after` or
 * its timebox, which Supabase Auth words alike.
 */
export const SessionEnd = Schema.Literal("lifetime", "inactivity", "low_aal", "newer_login")
export type SessionEnd = typeof SessionEnd.Type

export class RefreshSessionEnded extends reason<RefreshSessionEnded>()("RefreshSessionEnded", {
  end: SessionEnd
}) {}

// PKCE

/**
 * PKCE parameters refused: `unpaired` a challenge without its method or the reverse, the
 * challenge's `challenge_length` or `challenge_characters`, a `method_unsupported`, a challenge
 * at a `phone_signup`, or the PKCE grant without its code or verifier (`exchange_incomplete`).
 */
export class PkceParamsInvalid extends reason<PkceParamsInvalid>()("PkceParamsInvalid", {
  problem: Schema.Literal(
    "unpaired",
    "challenge_length",
    "challenge_characters",
    "method_unsupported",
    "phone_signup",
    "exchange_incomplete"
  )
}) {}
export class FlowStateNotFound extends reason<FlowStateNotFound>()("FlowStateNotFound", {}) {}
export class FlowStateExpired extends reason<FlowStateExpired>()("FlowStateExpired", {}) {}
export class BadCodeVerifier extends reason<BadCodeVerifier>()("BadCodeVerifier", {}) {}

// One-time codes, links and sending

/** A typed code that is wrong, used or expired. */
export class OtpExpired extends reason<OtpExpired>()("OtpExpired", {}) {}
/** A mailed link whose token is wrong, used or expired. */
export class EmailLinkExpired extends reason<EmailLinkExpired>()("EmailLinkExpired", {}) {}
/** POST /otp with `create_user: false` for an address that has no user. */
export class OtpSignupsDisabled extends reason<OtpSignupsDisabled>()("OtpSignupsDisabled", {}) {}
export class OverEmailSendRateLimit extends reason<OverEmailSendRateLimit>()("OverEmailSendRateLimit", {}) {}
export class OverSmsSendRateLimit extends reason<OverSmsSendRateLimit>()("OverSmsSendRateLimit", {}) {}
/** A send asked for again within the spacing (`SMTP_MAX_FREQUENCY`, `SMS_MAX_FREQUENCY`). */
export class SentTooRecently extends reason<SentTooRecently>()("SentTooRecently", {
  channel: Schema.Literal("email", "sms"),
  secondsLeft: Schema.Number
}) {}
/** No SMS gateway can send: `SMS_PROVIDER` unset, unknown, or its credentials empty. */
export class SmsUnavailable extends reason<SmsUnavailable>()("SmsUnavailable", {}) {}
/** The gateway refused the text; `otpType` as Supabase Auth names it (`sms`, `phone_change`, …). */
export class SmsNotDelivered extends reason<SmsNotDelivered>()("SmsNotDelivered", {
  otpType: Schema.String,
  detail: Schema.String
}) {}

// The signed-in user

export class ReauthenticationNeeded extends reason<ReauthenticationNeeded>()("ReauthenticationNeeded", {}) {}
export class ReauthenticationNotValid extends reason<ReauthenticationNotValid>()(
  "ReauthenticationNotValid",
  {}
) {}
/** GET /reauthenticate for an address or number not yet confirmed. */
export class ContactNotVerified extends reason<ContactNotVerified>()("ContactNotVerified", {
  channel: Schema.Literal("email", "phone")
}) {}
export class SamePassword extends reason<SamePassword>()("SamePassword", {}) {}
export class CurrentPasswordRequired extends reason<CurrentPasswordRequired>()(
  "CurrentPasswordRequired",
  {}
) {}
export class CurrentPasswordInvalid extends reason<CurrentPasswordInvalid>()("CurrentPasswordInvalid", {}) {}

// The admin API

/** POST /admin/users whose body cannot make a user; `problem` says what is wrong with it. */
export class AdminUserInvalid extends reason<AdminUserInvalid>()("AdminUserInvalid", {
  problem: Schema.Literal("no_contact", "password_and_hash", "hash_format", "id_not_uuid", "id_nil")
}) {}
/** A `ban_duration` that is not `none` nor a duration; `message` is Go's parse error (`Ban.ts`). */
export class BanDurationInvalid extends reason<BanDurationInvalid>()("BanDurationInvalid", {
  message: Schema.String
}) {}
/** POST /admin/generate_link with a `type` it does not make links of. */
export class LinkTypeInvalid extends reason<LinkTypeInvalid>()("LinkTypeInvalid", { type: Schema.String }) {}
/** An `email_change_current` link while secure email change is off: there is no such link. */
export class CurrentEmailLinkNeedsSecureChange extends reason<CurrentEmailLinkNeedsSecureChange>()(
  "CurrentEmailLinkNeedsSecureChange",
  {}
) {}

// The admin API's custom providers

export class CustomProvidersDisabled extends reason<CustomProvidersDisabled>()(
  "CustomProvidersDisabled",
  {}
) {}
export class CustomProviderNotFound extends reason<CustomProviderNotFound>()("CustomProviderNotFound", {}) {}
export class CustomProviderTaken extends reason<CustomProviderTaken>()("CustomProviderTaken", {}) {}
export class CustomProviderQuotaReached extends reason<CustomProviderQuotaReached>()(
  "CustomProviderQuotaReached",
  {}
) {}
/** GET /admin/custom-providers with a `type` other than `oauth2` or `oidc`. */
export class CustomProviderTypeInvalid extends reason<CustomProviderTypeInvalid>()(
  "CustomProviderTypeInvalid",
  {}
) {}
/** A custom provider's body the domain's rules refuse, in their words (`CustomProvider.Invalid`). */
export class CustomProviderInvalid extends reason<CustomProviderInvalid>()("CustomProviderInvalid", {
  message: Schema.String
}) {}
/** A custom provider's URL the outbound guard will not call, or its discovery document refused. */
export class ProviderEndpointRefused extends reason<ProviderEndpointRefused>()("ProviderEndpointRefused", {
  message: Schema.String
}) {}

// Factors (MFA), recovery codes and passkeys

/** The factor types a switch turns on and off (`MFA_<TYPE>_ENROLL_ENABLED`, `…_VERIFY_ENABLED`). */
export const SwitchedFactorType = Schema.Literal("totp", "phone", "webauthn", "recovery_code")
export type SwitchedFactorType = typeof SwitchedFactorType.Type

/** A factor route called by an anonymous user (Supabase Auth's `requireNotAnonymous`). */
export class AnonymousUserNotAllowed extends reason<AnonymousUserNotAllowed>()(
  "AnonymousUserNotAllowed",
  {}
) {}
/** The `{factor_id}` of a path is not a UUID. */
export class MalformedFactorId extends reason<MalformedFactorId>()("MalformedFactorId", {}) {}
/** A `factor_type` that cannot be enrolled, challenged or verified there (recovery codes have routes of their own). */
export class FactorTypeUnsupported extends reason<FactorTypeUnsupported>()("FactorTypeUnsupported", {}) {}
/** A verify of a TOTP or phone factor, or of a recovery code, with an empty code. */
export class FactorCodeMissing extends reason<FactorCodeMissing>()("FactorCodeMissing", {}) {}
/** A phone enrolment without a number. */
export class FactorPhoneMissing extends reason<FactorPhoneMissing>()("FactorPhoneMissing", {}) {}
/** A TOTP enrolment whose `otpauth://` URI no QR code can hold (`TotpUri.fitsQrCode`): its issuer is too long. */
export class TotpIssuerTooLong extends reason<TotpIssuerTooLong>()("TotpIssuerTooLong", {}) {}
/**
 * A WebAuthn factor's verify whose `web_authn` is `missing`, of an unknown `type`, without its
 * credential response (`response_missing`), or with one that is no credential of its kind
 * (`response_malformed`).
 */
export class WebAuthnParamsInvalid extends reason<WebAuthnParamsInvalid>()("WebAuthnParamsInvalid", {
  problem: Schema.Literal("missing", "type", "response_missing", "response_malformed")
}) {}
/** The factor of a path is not the user's (or not there). */
export class FactorNotFound extends reason<FactorNotFound>()("FactorNotFound", {}) {}
/** A verify names a challenge the factor does not have. */
export class ChallengeNotFound extends reason<ChallengeNotFound>()("ChallengeNotFound", {}) {}
/** An enrolment of a type whose `…_ENROLL_ENABLED` is off. */
export class FactorEnrollDisabled extends reason<FactorEnrollDisabled>()("FactorEnrollDisabled", {
  factorType: SwitchedFactorType
}) {}
/**
 * A challenge or verify of a type whose `…_VERIFY_ENABLED` is off. `at` is where: Supabase Auth
 * answers a WebAuthn verify with the enrolment's code, and the challenge with the verify's.
 */
export class FactorVerifyDisabled extends reason<FactorVerifyDisabled>()("FactorVerifyDisabled", {
  factorType: SwitchedFactorType,
  at: Schema.Literal("challenge", "verify")
}) {}
/** A phone enrolment for a number that already has a verified phone factor. */
export class VerifiedPhoneFactorExists extends reason<VerifiedPhoneFactorExists>()(
  "VerifiedPhoneFactorExists",
  {}
) {}
/** A set of recovery codes asked for while the user has one. */
export class RecoveryCodesExist extends reason<RecoveryCodesExist>()("RecoveryCodesExist", {}) {}
/** Recovery codes asked for by a user with no other verified factor. */
export class RecoveryCodesSoleFactor extends reason<RecoveryCodesSoleFactor>()(
  "RecoveryCodesSoleFactor",
  {}
) {}
/** Another factor of the user has this friendly name (`""` included, as in Supabase Auth). */
export class FactorNameConflict extends reason<FactorNameConflict>()("FactorNameConflict", {
  friendlyName: Schema.String
}) {}
/** `MFA_MAX_ENROLLED_FACTORS` or `MFA_MAX_VERIFIED_FACTORS` reached. */
export class TooManyFactors extends reason<TooManyFactors>()("TooManyFactors", {}) {}
/**
 * An action that needs an aal2 session, from one below it; `action` picks Supabase Auth's
 * wording and status for that place.
 */
export class Aal2Required extends reason<Aal2Required>()("Aal2Required", {
  action: Schema.Literal("enroll", "unenroll", "update_user", "manage_passkeys", "manage_recovery_codes")
}) {}
/** A verify of a challenge already used, or asked for from another address. */
export class ChallengeUsedOrMoved extends reason<ChallengeUsedOrMoved>()("ChallengeUsedOrMoved", {}) {}
/** A verify of a challenge past `MFA_CHALLENGE_EXPIRY_DURATION`. */
export class FactorChallengeExpired extends reason<FactorChallengeExpired>()("FactorChallengeExpired", {
  challengeId: Schema.String
}) {}
/** A wrong code, a failed WebAuthn ceremony, or a wrong, used or missing recovery code. */
export class FactorVerificationFailed extends reason<FactorVerificationFailed>()("FactorVerificationFailed", {
  factorType: SwitchedFactorType
}) {}
/**
 * A TOTP factor's secret sealed under a key the service was not given (or altered): the
 * operator's to mend, so Supabase Auth's 500.
 */
export class FactorSecretUnreadable extends reason<FactorSecretUnreadable>()("FactorSecretUnreadable", {}) {}
/** The MFA-verification-attempt hook refused, in its words. */
export class FactorVerificationRejected extends reason<FactorVerificationRejected>()(
  "FactorVerificationRejected",
  { message: Schema.String }
) {}
/** Too many wrong recovery codes in a row: verification is locked for `secondsLeft`. */
export class RecoveryCodesLocked extends reason<RecoveryCodesLocked>()("RecoveryCodesLocked", {
  secondsLeft: Schema.Number
}) {}
/** A `/passkeys` route while `PASSKEY_ENABLED` is off. */
export class PasskeysDisabled extends reason<PasskeysDisabled>()("PasskeysDisabled", {}) {}
/** `PASSKEY_MAX_PASSKEYS_PER_USER` reached. */
export class TooManyPasskeys extends reason<TooManyPasskeys>()("TooManyPasskeys", {}) {}
/** A passkey registration by a user of a single sign-on provider. */
export class SsoUserPasskey extends reason<SsoUserPasskey>()("SsoUserPasskey", {}) {}
/** A passkey verify without its challenge id or credential, or with a challenge id that is no UUID. */
export class PasskeyVerifyInvalid extends reason<PasskeyVerifyInvalid>()("PasskeyVerifyInvalid", {
  problem: Schema.Literal("challenge_id_missing", "credential_missing", "challenge_id_not_uuid")
}) {}
/** A passkey's new friendly name that is empty or too long (`Passkey.checkFriendlyName`). */
export class PasskeyNameInvalid extends reason<PasskeyNameInvalid>()("PasskeyNameInvalid", {
  problem: Schema.Literal("missing", "too_long")
}) {}
/** The passkey of a path is not the user's, not there, or its id is not a UUID. */
export class PasskeyNotFound extends reason<PasskeyNotFound>()("PasskeyNotFound", {}) {}
/** A passkey ceremony's challenge that is unknown, used, or of another user or purpose. */
export class WebAuthnChallengeNotFound extends reason<WebAuthnChallengeNotFound>()(
  "WebAuthnChallengeNotFound",
  {}
) {}
/** A passkey ceremony's challenge past `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`. */
export class WebAuthnChallengeExpired extends reason<WebAuthnChallengeExpired>()(
  "WebAuthnChallengeExpired",
  {}
) {}
/**
 * A passkey ceremony's credential that does not parse (`unparsable`) or does not verify
 * (`refused`: origin, relying party, signature, sign counter, user handle).
 */
export class WebAuthnVerificationFailed extends reason<WebAuthnVerificationFailed>()(
  "WebAuthnVerificationFailed",
  { failure: Schema.Literal("unparsable", "refused") }
) {}
/** A passkey registration of a credential already stored. */
export class WebAuthnCredentialExists extends reason<WebAuthnCredentialExists>()(
  "WebAuthnCredentialExists",
  {}
) {}

/**
 * A passkey that verified, of a user who may not sign in: an address or number not confirmed,
 * or a ban. Supabase Auth answers these 403 at a passkey sign-in (400 at a password grant).
 */
export class PasskeySignInRefused extends reason<PasskeySignInRefused>()("PasskeySignInRefused", {
  why: Schema.Literal("email_not_confirmed", "phone_not_confirmed", "banned")
}) {}

/** Every reason an auth use case can give. */
export type AuthError =
  | BadJwt
  | WeakPassword
  | MalformedEmail
  | EmailTooLong
  | EmailRequired
  | MalformedPhone
  | MalformedUserId
  | AnonymousPasswordWithoutContact
  | MagicLinkWithoutEmail
  | RecoveryWithoutEmail
  | EmailAndPhoneGiven
  | ResendRequestInvalid
  | VerifyRequestInvalid
  | SmsChannelUnsupported
  | ReauthenticationWithoutContact
  | CaptchaMissing
  | CaptchaRefused
  | CaptchaUnverifiable
  | NoBearerToken
  | MalformedSessionIdClaim
  | MissingSubClaim
  | SubClaimNotUuid
  | UserFromJwtNotFound
  | SessionFromJwtNotFound
  | SessionNoLongerValid
  | UserIsBanned
  | NotAdmin
  | AppMetadataNeedsAdmin
  | SignupDisabled
  | UserAlreadyRegistered
  | EmailInUse
  | PhoneInUse
  | PhoneInUseByAnother
  | LinkedEmailInUse
  | SignupWithoutPassword
  | LoginWithoutContact
  | TokenAudienceMismatch
  | NoSuchUser
  | NoUserWithEmail
  | InvalidCredentials
  | PasswordGrantUserBanned
  | EmailNotConfirmed
  | PhoneNotConfirmed
  | AnonymousSignInsDisabled
  | EmailLoginsDisabled
  | EmailSignupsDisabled
  | EmailResendDisabled
  | PhoneLoginsDisabled
  | PhoneSignupsDisabled
  | PhoneResendDisabled
  | PhoneOtpDisabled
  | UserNotSaved
  | ManualLinkingDisabled
  | LinkingWithoutAccessToken
  | IdentityAlreadyLinked
  | UnverifiedProviderEmail
  | LastIdentity
  | IdentityNotFound
  | UnlinkEmailConflict
  | UnsupportedProvider
  | ProviderMisconfigured
  | ProviderUnreachable
  | OAuthStateMissing
  | OAuthStateNotFound
  | ProviderRefused
  | ProviderProfileUnavailable
  | IdTokenRefused
  | IdTokenProviderUnsupported
  | IdTokenIssuerRefused
  | IdTokenProviderDisabled
  | MalformedRefreshToken
  | RefreshTokenUnknown
  | RefreshTokenReused
  | RefreshTokenUserBanned
  | RefreshSessionEnded
  | PkceParamsInvalid
  | FlowStateNotFound
  | FlowStateExpired
  | BadCodeVerifier
  | OtpExpired
  | EmailLinkExpired
  | OtpSignupsDisabled
  | OverEmailSendRateLimit
  | OverSmsSendRateLimit
  | SentTooRecently
  | SmsUnavailable
  | SmsNotDelivered
  | ReauthenticationNeeded
  | ReauthenticationNotValid
  | ContactNotVerified
  | SamePassword
  | CurrentPasswordRequired
  | CurrentPasswordInvalid
  | AdminUserInvalid
  | BanDurationInvalid
  | LinkTypeInvalid
  | CurrentEmailLinkNeedsSecureChange
  | CustomProvidersDisabled
  | CustomProviderNotFound
  | CustomProviderTaken
  | CustomProviderQuotaReached
  | CustomProviderTypeInvalid
  | CustomProviderInvalid
  | ProviderEndpointRefused
  | AnonymousUserNotAllowed
  | MalformedFactorId
  | FactorTypeUnsupported
  | FactorCodeMissing
  | FactorPhoneMissing
  | TotpIssuerTooLong
  | WebAuthnParamsInvalid
  | FactorNotFound
  | ChallengeNotFound
  | FactorEnrollDisabled
  | FactorVerifyDisabled
  | VerifiedPhoneFactorExists
  | RecoveryCodesExist
  | RecoveryCodesSoleFactor
  | FactorNameConflict
  | TooManyFactors
  | Aal2Required
  | ChallengeUsedOrMoved
  | FactorChallengeExpired
  | FactorVerificationFailed
  | FactorSecretUnreadable
  | FactorVerificationRejected
  | RecoveryCodesLocked
  | PasskeysDisabled
  | TooManyPasskeys
  | SsoUserPasskey
  | PasskeyVerifyInvalid
  | PasskeyNameInvalid
  | PasskeyNotFound
  | WebAuthnChallengeNotFound
  | WebAuthnChallengeExpired
  | WebAuthnVerificationFailed
  | WebAuthnCredentialExists
  | PasskeySignInRefused
