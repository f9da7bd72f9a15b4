import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Base64Url from "./Base64Url.js"
import { constantTimeEqual } from "./ConstantTime.js"

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
export const CodeVerifier = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9\-._~]{43,128}$/, {
    message: () => "code_verifier must be 43-128 characters of [A-Za-z0-9-._~]"
  }),
  Schema.brand("CodeVerifier")
)
export type CodeVerifier = typeof CodeVerifier.Type

/** An S256 challenge is BASE64URL(SHA-256(verifier)): always 43 characters, no padding. */
export const CodeChallenge = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9\-_]{43}$/, {
    message: () => "code_challenge must be a 43-character base64url S256 challenge"
  }),
  Schema.brand("CodeChallenge")
)
export type CodeChallenge = typeof CodeChallenge.Type

/** `plain` is deliberately absent: OAuth 2.1 and RFC 9700 §2.1.1 steer servers to S256. */
export const CodeChallengeMethod = Schema.Literal("S256")
export type CodeChallengeMethod = typeof CodeChallengeMethod.Type

export class InvalidPkce extends Schema.TaggedError<InvalidPkce>()("InvalidPkce", {
  reason: Schema.Literal("unsupported_method", "malformed_challenge", "malformed_verifier", "mismatch"),
  message: Schema.String
}) {}

/** BASE64URL(SHA-256(ASCII(verifier))) as defined by RFC 7636 §4.2. */
export const challengeOf = (verifier: string): Effect.Effect<string> => Base64Url.sha256Of(verifier)

/** Validates the challenge half that arrives at the authorize endpoint. */
export const parseChallenge = (
  challenge: string,
  method: string | undefined
): Either.Either<CodeChallenge, InvalidPkce> => {
  // RFC 7636 §4.3 defaults a missing method to `plain`, which we refuse, so a missing method
  // is refused too rather than silently upgraded.
  if (method !== "S256") {
    return Either.left(
      new InvalidPkce({
        reason: "unsupported_method",
        message: "code_challenge_method must be S256"
      })
    )
  }
  return Schema.decodeUnknownEither(CodeChallenge)(challenge).pipe(
    Either.mapLeft(
      () =>
        new InvalidPkce({
          reason: "malformed_challenge",
          message: "code_challenge must be a 43-character base64url S256 challenge"
        })
    )
  )
}

/** Checks the verifier presented at the token endpoint against the stored challenge. */
export const verify = (verifier: string, challenge: CodeChallenge): Effect.Effect<void, InvalidPkce> =>
  Effect.gen(function* () {
    if (!Schema.is(CodeVerifier)(verifier)) {
      return yield* new InvalidPkce({
        reason: "malformed_verifier",
        message: "code_verifier must be 43-128 characters of [A-Za-z0-9-._~]"
      })
    }
    const computed = yield* challengeOf(verifier)
    if (!constantTimeEqual(computed, challenge)) {
      return yield* new InvalidPkce({ reason: "mismatch", message: "PKCE verification failed" })
    }
  })
