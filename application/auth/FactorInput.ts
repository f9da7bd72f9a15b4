import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FactorId } from "../../domain/auth/Factor.js"
import type { Aal } from "../../domain/auth/Session.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { FactorStore, type StoredFactor } from "./ports/FactorStore.js"

const isFactorId = Schema.is(FactorId)

/**
 * The `{factor_id}` of a path, as Supabase Auth's `loadFactor` reads it: a UUID, else 404
 * `validation_failed`.
 */
export const parseFactorId = (raw: string): Effect.Effect<FactorId, AuthError.MalformedFactorId> =>
  isFactorId(raw) ? Effect.succeed(raw) : Effect.fail(new AuthError.MalformedFactorId())

/** Supabase Auth's `requireNotAnonymous` on every `/factors` route: 403 `no_authorization`. */
export const requireNotAnonymous = (
  signedIn: SignedIn
): Effect.Effect<void, AuthError.AnonymousUserNotAllowed> =>
  signedIn.user.isAnonymous ? Effect.fail(new AuthError.AnonymousUserNotAllowed()) : Effect.void

/**
 * The level of the caller's session as it stands now, as Supabase Auth's `session.IsAAL2()` reads
 * it: a token minted at aal2 says aal2 until it expires, though an unenrol may have lowered its
 * session since. A token without a session (none is minted so) has the level it claims.
 */
export const sessionAal = (signedIn: SignedIn): Aal =>
  Option.match(signedIn.session, {
    onNone: () => (signedIn.claims.aal === "aal2" ? "aal2" : "aal1"),
    onSome: (session) => (session.aal === "aal2" ? "aal2" : "aal1")
  })

/** The caller of a factor's challenge or verify: the user, and their factor of the path. */
export interface FactorOwner {
  readonly signedIn: SignedIn
  readonly stored: StoredFactor
}

/**
 * The signed-in, not anonymous user with their factor of the path, as Supabase Auth's
 * `loadFactor` finds it: not a UUID → `validation_failed`, not theirs → `mfa_factor_not_found`.
 * There it runs before the challenge and verify limiters, so a factor id that is not the
 * caller's is answered without counting; here it is the caller check of those routes.
 */
export const owningFactor = (signedIn: SignedIn, rawId: string) =>
  Effect.gen(function* () {
    yield* requireNotAnonymous(signedIn)
    const factorId = yield* parseFactorId(rawId)
    const found = yield* Effect.flatMap(FactorStore, (store) => store.find(signedIn.user.id, factorId))
    if (Option.isNone(found)) return yield* new AuthError.FactorNotFound()
    return { signedIn, stored: found.value } satisfies FactorOwner
  })
