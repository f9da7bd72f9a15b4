import * as Cache from "effect/Cache"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { ClientId } from "../../../domain/Ids.js"

export interface CacheOptions {
  /** How long a looked-up client (or its absence) is reused. */
  readonly timeToLive: Duration.DurationInput
  readonly capacity: number
}

/**
 * `findById` runs on every token, revocation and authorize request, and clients change rarely:
 * this decorator answers it from memory for `timeToLive`. Writes made through it evict the
 * client at once (all but `touch`, whose stamp only the store's own queries read); writes by
 * another process (`latchkey oauth clients delete`, another instance) are seen once the entry
 * expires. Meant for the server, not for one-shot commands.
 */
export const layer = (options: CacheOptions) =>
  Layer.effect(
    ClientRepository,
    Effect.gen(function* () {
      const stored = yield* ClientRepository
      const cache = yield* Cache.make({
        capacity: options.capacity,
        timeToLive: options.timeToLive,
        lookup: (id: ClientId) => stored.findById(id)
      })
      const evicting =
        (id: ClientId) =>
        <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.ensuring(effect, cache.invalidate(id))
      return {
        insert: (client) => stored.insert(client).pipe(evicting(client.id)),
        upsert: (client) => stored.upsert(client).pipe(evicting(client.id)),
        findById: (id) => cache.get(id),
        list: stored.list,
        remove: (id) => stored.remove(id).pipe(evicting(id)),
        // Only the reaper and `list` read last_used_at, and both go to the store: a login's
        // stamp need not cost the /callback and /token that follow it a fresh look-up.
        touch: stored.touch,
        reapIdle: (now) =>
          stored.reapIdle(now).pipe(Effect.tap((ids) => Effect.forEach(ids, (id) => cache.invalidate(id))))
      }
    })
  )
