import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CachedClientRepository from "../../../../adapters/cache/oauth/CachedClientRepository.js"
import * as ClientRepositoryMemory from "../../../../adapters/memory/oauth/ClientRepositoryMemory.js"
import * as MemoryState from "../../../../adapters/memory/oauth/MemoryState.js"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import type { Client } from "../../../../domain/oauth/Client.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"

/** The store itself, and the cache in front of it, as large as the server's. */
const both = Effect.gen(function* () {
  const stored = yield* ClientRepository
  const context = yield* Layer.build(
    CachedClientRepository.layer({ timeToLive: "5 seconds", capacity: CachedClientRepository.maxClients })
  )
  return { stored, cached: Context.get(context, ClientRepository) }
}).pipe(Effect.provide(ClientRepositoryMemory.layer.pipe(Layer.provide(MemoryState.layer))))

/** Whether the cache still holds the client: it has been removed from the store behind it. */
const isCached = (cached: ClientRepository["Type"], client: Client) =>
  Effect.map(cached.findById(client.id), Option.isSome)

describe("CachedClientRepository", () => {
  it.scoped("reuses a looked-up client for its time to live, then reads the store again", () =>
    Effect.gen(function* () {
      const { stored, cached } = yield* both
      const client = Fixtures.client()
      yield* stored.insert(client)
      expect(Option.isSome(yield* cached.findById(client.id))).toBe(true)
      // Removed behind the cache's back, as another process would.
      yield* stored.remove(client.id)
      yield* TestClock.adjust("4 seconds")
      expect(Option.isSome(yield* cached.findById(client.id))).toBe(true)
      yield* TestClock.adjust("2 seconds")
      expect(Option.isNone(yield* cached.findById(client.id))).toBe(true)
    })
  )

  it.scoped("forgets a client at once when it is written through the cache", () =>
    Effect.gen(function* () {
      const { cached } = yield* both
      const client = Fixtures.client()
      // An unknown id is cached as unknown, until a client with that id is inserted.
      expect(Option.isNone(yield* cached.findById(client.id))).toBe(true)
      yield* cached.insert(client)
      expect(Option.isSome(yield* cached.findById(client.id))).toBe(true)
      expect(yield* cached.remove(client.id)).toBe(true)
      expect(Option.isNone(yield* cached.findById(client.id))).toBe(true)
    })
  )

  it.scoped("holds at most maxClients, dropping the least recently looked up", () =>
    Effect.gen(function* () {
      const { stored, cached } = yield* both
      const limit = CachedClientRepository.maxClients
      const clients = Array.from({ length: limit + 1 }, () => Fixtures.client())
      yield* Effect.forEach(clients, (client) => stored.insert(client))
      const [first, second, ...rest] = clients
      if (first === undefined || second === undefined) return yield* Effect.dieMessage("no clients")
      // Looked up in order, except that the first is looked up again before the last arrives:
      // the second is then the least recently used.
      yield* Effect.forEach([first, second, ...rest.slice(0, -1), first, ...rest.slice(-1)], (client) =>
        cached.findById(client.id)
      )
      yield* Effect.forEach(clients, (client) => stored.remove(client.id))
      // Newest first, so that re-reading an evicted one cannot push out a later one.
      const held = yield* Effect.forEach([...rest].reverse(), (client) => isCached(cached, client))
      expect(held.filter(Boolean)).toHaveLength(limit - 1)
      expect(yield* isCached(cached, first)).toBe(true)
      expect(yield* isCached(cached, second)).toBe(false)
    })
  )

  it.scoped("forgets reaped clients at once", () =>
    Effect.gen(function* () {
      const { cached } = yield* both
      const idle = Fixtures.client({ createdAt: Fixtures.t0 })
      yield* cached.insert(idle)
      expect(Option.isSome(yield* cached.findById(idle.id))).toBe(true)
      const reaped = yield* cached.reapIdle(new Date(Fixtures.t0.getTime() + 91 * 24 * 3600 * 1000), 1000)
      expect(reaped).toContain(idle.id)
      expect(Option.isNone(yield* cached.findById(idle.id))).toBe(true)
    })
  )
})
