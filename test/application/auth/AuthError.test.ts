import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as AuthError from "../../../application/auth/AuthError.js"
import * as PasswordPolicy from "../../../domain/PasswordPolicy.js"
import * as GoTrueErrorCodes from "./GoTrueErrorCodes.js"

const outOfScope: ReadonlyArray<string> = Object.values(GoTrueErrorCodes.outOfScope).flat()

describe("AuthError.ErrorCode", () => {
  it("is Supabase Auth's catalogue, in its order, less the codes of features the service lacks", () => {
    const inScope = GoTrueErrorCodes.all.filter((code) => !outOfScope.includes(code))
    expect(AuthError.ErrorCode.literals).toEqual(inScope)
  })

  it("leaves out only codes the catalogue has, each once", () => {
    const all: ReadonlyArray<string> = GoTrueErrorCodes.all
    expect(outOfScope.filter((code) => !all.includes(code))).toEqual([])
    expect(new Set(outOfScope).size).toBe(outOfScope.length)
  })
})

describe("AuthError constructors", () => {
  // Supabase Auth's texts at bc32168, which clients show and sometimes match on.
  it.each([
    [AuthError.invalidCredentials(), "invalid_credentials", "Invalid login credentials"],
    [AuthError.unsupportedGrantType(), "invalid_credentials", "unsupported_grant_type"],
    [AuthError.userAlreadyExists(), "user_already_exists", "User already registered"],
    [AuthError.signupDisabled(), "signup_disabled", "Signups not allowed for this instance"],
    [AuthError.noAuthorization(), "no_authorization", "This endpoint requires a valid Bearer token"],
    [AuthError.notAdmin(), "not_admin", "User not allowed"],
    [AuthError.userBanned(), "user_banned", "User is banned"],
    [AuthError.sessionNotFound(), "session_not_found", "Session from session_id claim in JWT does not exist"],
    [
      AuthError.refreshTokenNotFound(),
      "refresh_token_not_found",
      "Invalid Refresh Token: Refresh Token Not Found"
    ],
    [
      AuthError.refreshTokenAlreadyUsed(),
      "refresh_token_already_used",
      "Invalid Refresh Token: Already Used"
    ],
    [AuthError.refreshTokenNotValid(), "validation_failed", "Refresh token is not valid"],
    [AuthError.emailExists(), "email_exists", "A user with this email address has already been registered"],
    [AuthError.phoneExists(), "phone_exists", "A user with this phone number has already been registered"],
    [AuthError.userNotFound(), "user_not_found", "User not found"],
    [AuthError.anonymousProviderDisabled(), "anonymous_provider_disabled", "Anonymous sign-ins are disabled"],
    [AuthError.emailProviderDisabled(), "email_provider_disabled", "Email logins are disabled"],
    [AuthError.phoneProviderDisabled(), "phone_provider_disabled", "Phone logins are disabled"],
    [AuthError.manualLinkingDisabled(), "manual_linking_disabled", "Manual linking is disabled"],
    [AuthError.samlDisabled(), "saml_provider_disabled", "SAML 2.0 is disabled"],
    [AuthError.web3Disabled(), "web3_provider_disabled", "Web3 provider is disabled"],
    [AuthError.otpExpired(), "otp_expired", "Token has expired or is invalid"],
    [AuthError.overRequestRateLimit(), "over_request_rate_limit", "Request rate limit reached"],
    [AuthError.invalidEmailFormat(), "validation_failed", "Unable to validate email address: invalid format"],
    [AuthError.invalidPhoneFormat(), "validation_failed", "Invalid phone number format (E.164 required)"],
    [
      AuthError.reauthenticationWithoutContact(),
      "validation_failed",
      "Reauthentication requires the user to have an email or a phone number"
    ],
    [AuthError.badJson("unexpected end"), "bad_json", "Could not parse request body as JSON: unexpected end"],
    [
      AuthError.badJwtSignature("token has invalid claims: token is expired"),
      "bad_jwt",
      "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired"
    ],
    [
      AuthError.refreshTokenSessionExpired("inactivity"),
      "session_expired",
      "Invalid Refresh Token: Session Expired (Inactivity)"
    ],
    [
      AuthError.refreshTokenSessionExpired("lifetime"),
      "session_expired",
      "Invalid Refresh Token: Session Expired"
    ],
    [
      AuthError.emailSentTooRecently(41.9),
      "over_email_send_rate_limit",
      "For security purposes, you can only request this after 41 seconds."
    ],
    [
      AuthError.requestEntityTooLarge(1_048_576),
      "request_entity_too_large",
      "Request body too large (max 1048576 bytes)"
    ]
  ])("%#: %s / %s", (error, code, message) => {
    expect(error.code).toBe(code)
    expect(error.message).toBe(message)
  })

  it("carries a status only where Supabase Auth departs from the code's usual one", () => {
    expect(AuthError.userBanned().status).toBeUndefined()
    expect(AuthError.passwordGrantUserBanned().status).toBe(400)
    expect(AuthError.refreshTokenUserBanned().status).toBe(400)
    expect(AuthError.refreshTokenSessionNotFound().status).toBe(400)
    expect(AuthError.sessionNoLongerValid().status).toBe(403)
    expect(AuthError.anonymousUserNotAllowed().status).toBe(403)
    expect(AuthError.subClaimNotUuid().status).toBe(400)
    expect(AuthError.userFromJwtNotFound().status).toBe(403)
    expect(AuthError.emailLoginsDisabled().status).toBe(422)
    expect(AuthError.aal2RequiredToUpdateUser().status).toBe(401)
  })

  it("carries a password policy's reasons and message into weak_password", () => {
    const policy = PasswordPolicy.make({ minLength: 8, requiredCharacters: "0123456789" })
    const refused = Either.flip(PasswordPolicy.check(policy, "short"))
    const weak = Either.getOrThrow(Either.map(refused, (e) => AuthError.weakPassword(e.reasons, e.message)))
    expect(weak.code).toBe("weak_password")
    expect(weak.reasons).toEqual(["length", "characters"])
    expect(weak.message).toBe(
      "Password should be at least 8 characters. Password should contain at least one character of each: 0123456789."
    )
  })

  it("marks OAuth-shaped failures with their OAuth error", () => {
    const error = AuthError.oauth("invalid_request", "refresh_token required", "validation_failed")
    expect(error.oauthError).toBe("invalid_request")
    expect(error.message).toBe("refresh_token required")
  })

  it.effect("is a typed failure use cases can fail with and callers can catch by tag", () =>
    Effect.gen(function* () {
      const caught = yield* Effect.fail(AuthError.invalidCredentials()).pipe(
        Effect.catchTag("AuthError", (error) => Effect.succeed(error.code))
      )
      expect(caught).toBe("invalid_credentials")
    })
  )
})
