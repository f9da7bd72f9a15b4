import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PasswordPolicy from "../../domain/PasswordPolicy.js"

/** A new password against the policy; a weak one fails with the policy's `WeakPassword`, a reason as it is. */
export const ensure = (
  policy: PasswordPolicy.PasswordPolicy,
  password: string
): Effect.Effect<void, PasswordPolicy.WeakPassword> =>
  Either.match(PasswordPolicy.check(policy, password), {
    onLeft: (weak) => Effect.fail(weak),
    onRight: () => Effect.void
  })
