import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type ChallengeMethod, FlowState, FlowStateId, parseMethod } from "../../domain/auth/FlowState.js"
import type { User } from "../../domain/User.js"
import { Secrets } from "../ports/Secrets.js"
import * as AuthError from "./AuthError.js"

/**
 * A request's PKCE challenge, read by `parse`: the only way a use case gets one, so that no
 * endpoint can start a flow with a method or a challenge nobody checked.
 */
export interface Challenge {
  readonly codeChallenge: string
  readonly method: ChallengeMethod
}

const challengeCharacters = /^[A-Za-z0-9._~-]+$/

/**
 * A request's `code_challenge` and `code_challenge_method` (`""` when absent), read as Supabase
 * Auth reads them: both or neither; a challenge of 43 to 128 unreserved characters (RFC 7636
 * §4.2), checked before the method; the method `S256` or `plain` in any case. None without a
 * challenge (the implicit flow). Supabase Auth turns an unknown method into a 500 when it
 * starts the flow; this answers its 400 `validation_failed` (docs/compatibility.md).
 */
export const parse = (
  codeChallenge: string,
  codeChallengeMethod: string
): Effect.Effect<Option.Option<Challenge>, AuthError.InvalidInput> => {
  if ((codeChallenge === "") !== (codeChallengeMethod === "")) {
    return Effect.fail(
      new AuthError.InvalidInput({ message: "PKCE flow requires code_challenge_method and code_challenge" })
    )
  }
  if (codeChallenge === "") return Effect.succeedNone
  if (codeChallenge.length < 43 || codeChallenge.length > 128) {
    return Effect.fail(
      new AuthError.InvalidInput({ message: "code challenge has to be between 43 and 128 characters" })
    )
  }
  if (!challengeCharacters.test(codeChallenge)) {
    return Effect.fail(
      new AuthError.InvalidInput({
        message:
          "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"
      })
    )
  }
  return Option.match(parseMethod(codeChallengeMethod), {
    onNone: () => Effect.fail(new AuthError.InvalidInput({ message: "code challenge method not supported" })),
    onSome: (method) => Effect.succeedSome({ codeChallenge, method })
  })
}

/**
 * The PKCE flow a request's challenge starts for the user its mail goes to (supabase-js
 * `flowType: "pkce"`): the mail's link then ends in `redirect_to?code=…` instead of a session in
 * the fragment. Writes nothing: the flow is stored with the token that names it.
 */
export const flowFor = (user: User, challenge: Challenge, authenticationMethod: string, now: Date) =>
  Effect.map(
    Effect.flatMap(Secrets, (secrets) => secrets.uuid),
    (id) =>
      new FlowState({
        id: FlowStateId.make(id),
        userId: user.id,
        codeChallenge: challenge.codeChallenge,
        codeChallengeMethod: challenge.method,
        authenticationMethod,
        authCodeHash: Option.none(),
        authCodeIssuedAt: Option.none(),
        providerTokens: Option.none(),
        createdAt: now
      })
  )
