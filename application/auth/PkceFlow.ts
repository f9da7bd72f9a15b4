import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FlowState, FlowStateId, parseMethod } from "../../domain/auth/FlowState.js"
import type { User } from "../../domain/User.js"
import { TokenMint } from "../ports/TokenMint.js"

/** A request's PKCE parameters (`""` when absent), checked by `ContactInput.pkce` already. */
export interface Challenge {
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
}

/**
 * The PKCE flow a request's `code_challenge` starts for the user its mail goes to (supabase-js
 * `flowType: "pkce"`): the mail's link then ends in `redirect_to?code=…` instead of a session in
 * the fragment. None without a challenge. Writes nothing: the flow is stored with the token
 * that names it.
 */
export const flowFor = (user: User, challenge: Challenge, authenticationMethod: string, now: Date) =>
  Effect.gen(function* () {
    if (challenge.codeChallenge === "") return Option.none<FlowState>()
    const method = parseMethod(challenge.codeChallengeMethod)
    // ContactInput.pkce checked the method before anything was written; this only narrows it.
    if (Option.isNone(method)) return yield* Effect.dieMessage("a PKCE method ContactInput.pkce let through")
    return Option.some(
      new FlowState({
        id: FlowStateId.make(yield* (yield* TokenMint).uuid),
        userId: user.id,
        codeChallenge: challenge.codeChallenge,
        codeChallengeMethod: method.value,
        authenticationMethod,
        authCodeHash: Option.none(),
        authCodeIssuedAt: Option.none(),
        providerTokens: Option.none(),
        createdAt: now
      })
    )
  })
