import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { UpstreamUsers } from "../../../application/oauth/ports/UpstreamUsers.js"
import * as UpstreamProfile from "../../../domain/UpstreamProfile.js"
import { User } from "../../../domain/User.js"
import { MemoryState, type Tables } from "./MemoryState.js"

const identityKey = (provider: string, subject: string) => `${provider}\u0000${subject}`

export const layer = Layer.effect(
  UpstreamUsers,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      upsertFromUpstream: (profile, ids, now) =>
        Ref.modify(state, (tables): [User, Tables] => {
          const key = identityKey(profile.provider, profile.subject)
          const existing = HashMap.get(tables.identities, key).pipe(
            Option.flatMap((identity) =>
              Option.map(HashMap.get(tables.users, identity.userId), (user) => ({ identity, user }))
            )
          )
          if (Option.isSome(existing)) {
            const { identity, user } = existing.value
            const returning = new User({ ...user, lastSignInAt: Option.some(now), updatedAt: now })
            return [
              returning,
              {
                ...tables,
                users: HashMap.set(tables.users, user.id, returning),
                identities: HashMap.set(
                  tables.identities,
                  key,
                  UpstreamProfile.signedInAgain(identity, profile, now)
                )
              }
            ]
          }
          const user = UpstreamProfile.newUser(ids.userId, profile, now)
          return [
            user,
            {
              ...tables,
              users: HashMap.set(tables.users, user.id, user),
              identities: HashMap.set(
                tables.identities,
                key,
                UpstreamProfile.newIdentity(ids.identityId, user.id, profile, now)
              )
            }
          ]
        }),
      findById: (id) => Effect.map(Ref.get(state), (tables) => HashMap.get(tables.users, id))
    }
  })
)
