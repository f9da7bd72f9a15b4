import { Context, type Effect, type Option } from "effect"
import type { IdentityId, UserId } from "../../domain/Ids.js"
import type { UpstreamProfile } from "../../domain/UpstreamProfile.js"
import type { User } from "../../domain/User.js"

export class UserRepository extends Context.Tag("latchkey/UserRepository")<
  UserRepository,
  {
    /**
     * Finds the user linked to this upstream identity, creating user and identity on first
     * login, and records the sign-in. Atomic: two first logins at once yield one user.
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
