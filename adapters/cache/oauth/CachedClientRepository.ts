import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import { ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import type { ClientId } from "../../../domain/Ids.js"
import type { Client } from "../../../domain/oauth/Client.js"
import * as BoundedCache from "../../BoundedCache.js"

/**
 * Clients kept at once; past it the least recently looked-up goes. The ids looked up are
 * whatever requests send (an unknown id is cached too, as absent), so the cache must not grow
 * with them. A thousand covers the clients active within one time to live on any deployment
 * we know of, at a few kilobytes each at most; a flood of made-up ids only costs the clients it
 * pushes out one look-up each.
 */
export const maxClients = 1000

export interface CacheOptions {
  /** How long a looked-up client (or its absence) is reused. */
  readonly timeToLive: Duration.DurationInput
  /** Clients kept at once, the least recently used dropped first; `maxClients` in the server. */
  readonly capacity: number
}

interface Entry {
  /** Completed by the one look-up that fills the entry; every request for the id awaits it. */
  readonly client: Deferred.Deferred<Option.Option<Client>>
  /** Epoch milliseconds from which the entry is stale; never while its look-up runs. */
  expiresAt: number
}

/**
 * `findById` runs on every token, revocation and authorize request, and clients change rarely:
 * this decorator answers it from memory for `timeToLive`. Writes made through it evict the
 * client at once (all but `touch`, whose stamp only the store's own queries read); writes by
 * another process (`latchkey oauth clients delete`, another instance) are seen once the entry
 * expires. Meant for the server, not for one-shot commands.
 *
 * Requests for an id that arrive while it is being looked up share that one look-up. It runs in
 * the layer's scope rather than in the request that started it, so a client hanging up cannot
 * cut it short for the others; a look-up that fails is not kept.
 *
 * Not effect's `Cache`: in 3.x it remembers every miss in its eviction list until the map
 * overflows its capacity, which a cache whose entries expire every few seconds never does, so
 * that list grew for as long as the process ran.
 */
export const layer = (options: CacheOptions) =>
  Layer.scoped(
    ClientRepository,
    Effect.gen(function* () {
      const stored = yield* ClientRepository
      const scope = yield* Effect.scope
      const timeToLive = Duration.toMillis(Duration.decode(options.timeToLive))
      const cache = BoundedCache.make<ClientId, Entry>({ maxEntries: options.capacity })

      const settle = (id: ClientId, entry: Entry) => (exit: Exit.Exit<Option.Option<Client>>) =>
        Effect.gen(function* () {
          // A write through the cache while the look-up ran has evicted the entry: leave it out.
          if (cache.peek(id) === entry) {
            if (Exit.isSuccess(exit)) entry.expiresAt = (yield* Clock.currentTimeMillis) + timeToLive
            else cache.delete(id)
          }
          yield* Deferred.done(entry.client, exit)
        })

      const findById = (id: ClientId) =>
        Effect.gen(function* () {
          const held = cache.get(id)
          if (held !== undefined && (yield* Clock.currentTimeMillis) < held.expiresAt) {
            return yield* Deferred.await(held.client)
          }
          const entry: Entry = {
            client: yield* Deferred.make<Option.Option<Client>>(),
            expiresAt: Number.POSITIVE_INFINITY
          }
          cache.set(id, entry)
          yield* stored.findById(id).pipe(Effect.onExit(settle(id, entry)), Effect.forkIn(scope))
          return yield* Deferred.await(entry.client)
        })

      const evicting =
        (id: ClientId) =>
        <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.ensuring(
            effect,
            Effect.sync(() => cache.delete(id))
          )
      return {
        insert: (client) => stored.insert(client).pipe(evicting(client.id)),
        upsert: (client) => stored.upsert(client).pipe(evicting(client.id)),
        findById,
        list: stored.list,
        remove: (id) => stored.remove(id).pipe(evicting(id)),
        // Only the reaper and `list` read last_used_at, and both go to the store: a login's
        // stamp need not cost the /callback and /token that follow it a fresh look-up.
        touch: stored.touch,
        reapIdle: (now, limit) =>
          stored.reapIdle(now, limit).pipe(
            Effect.tap((ids) =>
              Effect.sync(() => {
                for (const id of ids) cache.delete(id)
              })
            )
          )
      }
    })
  )
