import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"
import * as AuthError from "./AuthError.js"

/** A new password against the policy; a weak one is Supabase Auth's `weak_password`, its reasons kept. */
export const ensure = (
  policy: PasswordPolicy.PasswordPolicy,
  password: string
): Effect.Effect<void, AuthError.AuthError> =>
  Either.match(PasswordPolicy.check(policy, password), {
    onLeft: (weak) => Effect.fail(AuthError.weakPassword(weak.reasons, weak.message)),
    onRight: () => Effect.void
  })
