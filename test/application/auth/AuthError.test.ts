import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { ErrorCode } from "../../../adapters/http/auth/ErrorCode.js"
import * as ErrorResponse from "../../../adapters/http/auth/ErrorResponse.js"
import * as Refusal from "../../../adapters/http/auth/Refusal.js"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as BadJwt from "../../../domain/auth/BadJwt.js"
import * as PasswordPolicy from "../../../domain/PasswordPolicy.js"
import * as GoTrueErrorCodes from "./GoTrueErrorCodes.js"

const outOfScope: ReadonlyArray<string> = Object.values(GoTrueErrorCodes.outOfScope).flat()

describe("ErrorCode", () => {
  it("is Supabase Auth's catalogue, in its order, less the codes of features the service lacks", () => {
    const inScope = GoTrueErrorCodes.all.filter((code) => !outOfScope.includes(code))
    expect(ErrorCode.literals).toEqual(inScope)
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
    ]
  ])("%#: %s / %s", (reason, code, message) => {
    const answer = ErrorResponse.describe(reason)
    expect(answer.code).toBe(code)
    expect(answer.message).toBe(message)
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
