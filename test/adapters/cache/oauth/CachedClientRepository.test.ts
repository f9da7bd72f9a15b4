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
import * as Fixtures from "../../../support/oauth/Fixtures.js"

/** The store itself, and the cache in front of it. */
const both = Effect.gen(function* () {
  const stored = yield* ClientRepository
  const context = yield* Layer.build(CachedClientRepository.layer({ timeToLive: "5 seconds", capacity: 100 }))
  return { stored, cached: Context.get(context, ClientRepository) }
}).pipe(Effect.provide(ClientRepositoryMemory.layer.pipe(Layer.provide(MemoryState.layer))))

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

  it.scoped("forgets reaped clients at once", () =>
    Effect.gen(function* () {
      const { cached } = yield* both
      const idle = Fixtures.client({ createdAt: Fixtures.t0 })
      yield* cached.insert(idle)
      expect(Option.isSome(yield* cached.findById(idle.id))).toBe(true)
      const reaped = yield* cached.reapIdle(new Date(Fixtures.t0.getTime() + 91 * 24 * 3600 * 1000))
      expect(reaped).toContain(idle.id)
      expect(Option.isNone(yield* cached.findById(idle.id))).toBe(true)
    })
  )
})
