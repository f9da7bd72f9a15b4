import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { IdentityId, UserId } from "../../../domain/Ids.js"
import type { UpstreamProfile } from "../../../domain/UpstreamProfile.js"
import type { User } from "../../../domain/User.js"

/**
 * The oauth service's users: the people behind the upstream identities that logged in here,
 * found or created on each login. (The auth service keeps its own, fuller user store.)
 */
export class UpstreamUsers extends Context.Tag("latchkey/oauth/UpstreamUsers")<
  UpstreamUsers,
  {
    /**
     * Finds the user linked to this upstream identity, creating user and identity on first
     * login; on later logins records the sign-in and refreshes the identity's data and email
     * from the profile (the user's email and metadata stay as first created). Atomic: two first logins
     * at once yield one user, and both calls return it.
     */
    readonly upsertFromUpstream: (
      profile: UpstreamProfile,
      /** Ids to use if user and identity are new (randomness stays with the caller). */
      ids: { readonly userId: UserId; readonly identityId: IdentityId },
      now: Date
    ) => Effect.Effect<User>
    readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>>
  }
>() {}
