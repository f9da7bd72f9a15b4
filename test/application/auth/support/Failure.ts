import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as ErrorResponse from "../../../../adapters/http/auth/ErrorResponse.js"

/**
 * What a use-case test compares when a use case fails: the reason a client would be told.
 * Every per-use-case test under test/application/auth asserts failures through this module, so
 * that a change in how use cases represent their failures (today a reason each, which
 * adapters/http/auth/ErrorResponse.ts answers with a Supabase `error_code`) changes this file
 * alone: the reason stays the `error_code` the wire answers with, whoever computes it, or on
 * the few paths Supabase Auth answers in OAuth's `{error, error_description}` shape, that
 * `error` (the `error_code` then only names the failure in logs).
 */
const reasonOf = (error: unknown): { readonly code: string; readonly message: string } => {
  if (ErrorResponse.isReason(error)) {
    const answer = ErrorResponse.describe(error)
    return { code: answer.oauthError ?? answer.code, message: answer.message }
  }
  // A typed error without a wire code (a keys command's, say) is named by its tag.
  if (Predicate.hasProperty(error, "_tag")) {
    return {
      code: String(error._tag),
      message: Predicate.hasProperty(error, "message") ? String(error.message) : ""
    }
  }
  return { code: String(error), message: "" }
}

/** The reason of a failure a use case reports as a value (a callback's `Failed` outcome). */
export const codeOf = (error: unknown): string => reasonOf(error).code

/** `"ok"` when the effect succeeds, else the reason it failed with (Supabase's `error_code`). */
export const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<string, never, R> =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? reasonOf(result.left).code : "ok"))

/** `"ok"`, or `"<reason>: <message>"` where a test also holds the client's wording. */
export const describedFailureOf = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<string, never, R> =>
  Effect.map(Effect.either(effect), (result) => {
    if (Either.isRight(result)) return "ok"
    const reason = reasonOf(result.left)
    return `${reason.code}: ${reason.message}`
  })
