import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as FlowState from "../../domain/auth/FlowState.js"
import { Email, type Phone, parsePhone } from "../../domain/User.js"
import * as AuthError from "./AuthError.js"

const decodeEmail = Schema.decodeUnknownEither(Email)

/** An email address as a client typed it, checked and lower-cased as Supabase Auth does. */
export const email = (input: string): Effect.Effect<Email, AuthError.AuthError> =>
  Either.match(decodeEmail(input), {
    onLeft: () =>
      Effect.fail(
        input.trim().length > 255
          ? AuthError.validationFailed("An email address is too long")
          : AuthError.invalidEmailFormat()
      ),
    onRight: Effect.succeed
  })

/** A phone number as a client typed it, read as Supabase Auth reads it (`User.parsePhone`). */
export const phone = (input: string): Effect.Effect<Phone, AuthError.AuthError> =>
  Either.match(parsePhone(input), {
    onLeft: () => Effect.fail(AuthError.invalidPhoneFormat()),
    onRight: Effect.succeed
  })

const challengeCharacters = /^[A-Za-z0-9._~-]+$/

/**
 * Supabase Auth's checks of a PKCE sign-up's parameters: both or neither, and a challenge of
 * 43 to 128 unreserved characters (RFC 7636 §4.2).
 */
export const pkce = (
  codeChallenge: string,
  codeChallengeMethod: string
): Effect.Effect<void, AuthError.AuthError> => {
  if ((codeChallenge === "") !== (codeChallengeMethod === "")) {
    return Effect.fail(
      AuthError.validationFailed("PKCE flow requires code_challenge_method and code_challenge")
    )
  }
  if (codeChallenge === "") return Effect.void
  if (Option.isNone(FlowState.parseMethod(codeChallengeMethod))) {
    return Effect.fail(AuthError.validationFailed("code challenge method not supported"))
  }
  if (codeChallenge.length < 43 || codeChallenge.length > 128) {
    return Effect.fail(AuthError.validationFailed("code challenge has to be between 43 and 128 characters"))
  }
  return challengeCharacters.test(codeChallenge)
    ? Effect.void
    : Effect.fail(
        AuthError.validationFailed(
          "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"
        )
      )
}
