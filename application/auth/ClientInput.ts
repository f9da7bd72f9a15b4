import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type ChallengeMethod, parseMethod } from "../../domain/auth/FlowState.js"
import { Email, type Phone, parsePhone } from "../../domain/User.js"
import * as AuthError from "./AuthError.js"

/**
 * What a client sent, read as Supabase Auth reads it and refused as it refuses: the address or
 * number a user typed, and a request's PKCE challenge.
 */

const decodeEmail = Schema.decodeUnknownEither(Email)

/** An email address as a client typed it, checked and lower-cased as Supabase Auth does. */
export const email = (
  input: string
): Effect.Effect<Email, AuthError.EmailRequired | AuthError.EmailTooLong | AuthError.MalformedEmail> =>
  input === ""
    ? Effect.fail(new AuthError.EmailRequired())
    : Either.match(decodeEmail(input), {
        onLeft: () =>
          Effect.fail(
            input.trim().length > 255 ? new AuthError.EmailTooLong() : new AuthError.MalformedEmail()
          ),
        onRight: Effect.succeed
      })

/**
 * A UUID as Supabase Auth's parser (gofrs/uuid) takes one — canonical, 32 hex digits, in braces,
 * after `urn:uuid:` — written as it writes it back, canonical and lower-case; none otherwise.
 */
export const uuid = (input: string): Option.Option<string> => {
  const bare = input.replace(/^urn:uuid:/, "").replace(/^\{(.*)\}$/, "$1")
  const hex = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(bare) ? bare.replaceAll("-", "") : bare
  if (!/^[0-9a-f]{32}$/i.test(hex)) return Option.none()
  const lower = hex.toLowerCase()
  return Option.some(
    [lower.slice(0, 8), lower.slice(8, 12), lower.slice(12, 16), lower.slice(16, 20), lower.slice(20)].join(
      "-"
    )
  )
}

/** A phone number as a client typed it, read as Supabase Auth reads it (`User.parsePhone`). */
export const phone = (input: string): Effect.Effect<Phone, AuthError.MalformedPhone> =>
  Either.match(parsePhone(input), {
    onLeft: () => Effect.fail(new AuthError.MalformedPhone()),
    onRight: Effect.succeed
  })

/**
 * A request's PKCE challenge, read by `pkceChallenge`: the only way a use case gets one, so that
 * no endpoint can start a flow with a method or a challenge nobody checked.
 */
export interface PkceChallenge {
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
export const pkceChallenge = (
  codeChallenge: string,
  codeChallengeMethod: string
): Effect.Effect<Option.Option<PkceChallenge>, AuthError.PkceParamsInvalid> => {
  if ((codeChallenge === "") !== (codeChallengeMethod === "")) {
    return Effect.fail(new AuthError.PkceParamsInvalid({ problem: "unpaired" }))
  }
  if (codeChallenge === "") return Effect.succeedNone
  if (codeChallenge.length < 43 || codeChallenge.length > 128) {
    return Effect.fail(new AuthError.PkceParamsInvalid({ problem: "challenge_length" }))
  }
  if (!challengeCharacters.test(codeChallenge)) {
    return Effect.fail(new AuthError.PkceParamsInvalid({ problem: "challenge_characters" }))
  }
  return Option.match(parseMethod(codeChallengeMethod), {
    onNone: () => Effect.fail(new AuthError.PkceParamsInvalid({ problem: "method_unsupported" })),
    onSome: (method) => Effect.succeedSome({ codeChallenge, method })
  })
}
