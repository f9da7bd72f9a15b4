import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { ClientRepository } from "../../../../application/oauth/ports/ClientRepository.js"
import { TokenStore } from "../../../../application/oauth/ports/TokenStore.js"
import { ClientId } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/oauth/Fixtures.js"
import { concurrently, type It, wholeBatch } from "../Storage.js"

export const clientRepositoryContract = (it: It) =>
  describe("ClientRepository", () => {
    it.effect("inserts, finds and lists a client with all its fields", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const client = Fixtures.client({
          type: "confidential",
          origin: "seeded",
          secretHash: Option.some(Fixtures.secret().hash),
          redirectUris: ["https://app.example.com/cb", "http://localhost/cb"]
        })
        yield* clients.insert(client)
        const found = yield* clients.findById(client.id)
        expect(Option.getOrThrow(found)).toEqual(client)
        const all = yield* clients.list
        expect(all.map((c) => c.id)).toContain(client.id)
      })
    )

    it.effect("refuses a second client with the same id", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const client = Fixtures.client()
        yield* clients.insert(client)
        const again = yield* Effect.exit(clients.insert(Fixtures.client({ id: client.id, name: "other" })))
        expect(Exit.isFailure(again)).toBe(true)
        expect(Option.getOrThrow(yield* clients.findById(client.id)).name).toBe("Test client")
      })
    )

    it.effect(
      `of ${concurrently} concurrent inserts, distinct clients are all stored and one id only once`,
      () =>
        Effect.gen(function* () {
          const clients = yield* ClientRepository
          const distinct = Array.from({ length: concurrently }, (_, i) =>
            Fixtures.client({ name: `client ${i}` })
          )
          const id = ClientId.make(randomUUID())
          const sameId = Array.from({ length: concurrently }, (_, i) =>
            Fixtures.client({ id, name: `rival ${i}` })
          )
          const exits = yield* Effect.all(
            [...distinct, ...sameId].map((client) => Effect.exit(clients.insert(client))),
            { concurrency: "unbounded" }
          )
          expect(exits.slice(0, concurrently).every(Exit.isSuccess)).toBe(true)
          expect(exits.slice(concurrently).filter(Exit.isSuccess)).toHaveLength(1)
          for (const client of distinct) {
            expect(Option.getOrThrow(yield* clients.findById(client.id)).name).toBe(client.name)
          }
          const winner = sameId[exits.slice(concurrently).findIndex(Exit.isSuccess)]
          expect(Option.getOrThrow(yield* clients.findById(id)).name).toBe(winner?.name)
        })
    )

    it.effect("upsert inserts, then refreshes a client of the same origin and keeps its history", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const documentUrl = `https://app.example.com/${randomUUID()}/client.json`
        const first = Fixtures.client({
          id: ClientId.make(documentUrl),
          origin: "metadata_document",
          name: "App",
          redirectUris: ["https://app.example.com/cb"]
        })
        expect(yield* clients.upsert(first)).toEqual(first)
        expect(Option.getOrThrow(yield* clients.findById(first.id))).toEqual(first)
        const used = Time.plus(Fixtures.t0, "1 day")
        yield* clients.touch(first.id, used)
        const edited = Fixtures.client({
          id: first.id,
          origin: "metadata_document",
          name: "App 2",
          redirectUris: ["https://app.example.com/cb2", "http://127.0.0.1/cb"],
          createdAt: Time.plus(Fixtures.t0, "2 days")
        })
        const stored = yield* clients.upsert(edited)
        expect(stored.name).toBe("App 2")
        expect(stored.redirectUris).toEqual(["https://app.example.com/cb2", "http://127.0.0.1/cb"])
        expect(stored.createdAt).toEqual(Fixtures.t0)
        expect(stored.lastUsedAt).toEqual(Option.some(used))
        expect(Option.getOrThrow(yield* clients.findById(first.id))).toEqual(stored)
      })
    )

    it.effect("keeps where a signing client's keys are, and forgets it when the document drops it", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const documentUrl = `https://app.example.com/${randomUUID()}/client.json`
        const signing = Fixtures.client({
          id: ClientId.make(documentUrl),
          origin: "metadata_document",
          jwksUri: Option.some("https://app.example.com/jwks.json")
        })
        expect(yield* clients.upsert(signing)).toEqual(signing)
        expect(Option.getOrThrow(yield* clients.findById(signing.id)).jwksUri).toEqual(
          Option.some("https://app.example.com/jwks.json")
        )
        const unsigned = yield* clients.upsert(
          Fixtures.client({ id: signing.id, origin: "metadata_document" })
        )
        expect(unsigned.jwksUri).toEqual(Option.none())
        expect(Option.getOrThrow(yield* clients.findById(signing.id)).jwksUri).toEqual(Option.none())
      })
    )

    it.effect("upsert leaves a client of another origin alone", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const seeded = Fixtures.client({ origin: "seeded", name: "operator's" })
        yield* clients.insert(seeded)
        const again = yield* Effect.exit(
          clients.upsert(Fixtures.client({ id: seeded.id, origin: "metadata_document", name: "impostor" }))
        )
        expect(Exit.isFailure(again)).toBe(true)
        expect(Option.getOrThrow(yield* clients.findById(seeded.id))).toEqual(seeded)
      })
    )

    it.effect("never reaps metadata-document clients, however idle", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const documentClient = Fixtures.client({
          id: ClientId.make(`https://app.example.com/${randomUUID()}`),
          origin: "metadata_document"
        })
        yield* clients.upsert(documentClient)
        const reaped = yield* clients.reapIdle(Time.plus(Fixtures.t0, "3650 days"), wholeBatch)
        expect(reaped).not.toContain(documentClient.id)
        expect(Option.isSome(yield* clients.findById(documentClient.id))).toBe(true)
      })
    )

    it.effect("answers none for an unknown client and false when removing it", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const ghost = Fixtures.client()
        expect(Option.isNone(yield* clients.findById(ghost.id))).toBe(true)
        expect(yield* clients.remove(ghost.id)).toBe(false)
      })
    )

    it.effect("touch stamps last_used_at", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const client = Fixtures.client()
        yield* clients.insert(client)
        const later = Time.plus(Fixtures.t0, "3 days")
        yield* clients.touch(client.id, later)
        const found = Option.getOrThrow(yield* clients.findById(client.id))
        expect(found.lastUsedAt).toEqual(Option.some(later))
      })
    )

    it.effect("removing a client removes its tokens", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const tokens = yield* TokenStore
        const client = Fixtures.client()
        yield* clients.insert(client)
        const user = yield* Fixtures.user()
        const access = Fixtures.accessToken({ clientId: client.id, userId: user.id })
        yield* tokens.issue({ access, refresh: Option.none() })
        expect(yield* clients.remove(client.id)).toBe(true)
        expect(Option.isNone(yield* tokens.findAccess(access.hash))).toBe(true)
      })
    )

    it.effect("reaps at most `limit` clients a call, the rest on the calls after", () =>
      Effect.gen(function* () {
        const clients = yield* ClientRepository
        const idle = [Fixtures.client(), Fixtures.client(), Fixtures.client()]
        for (const client of idle) yield* clients.insert(client)
        const now = Time.plus(Fixtures.t0, "3650 days")
        expect(yield* clients.reapIdle(now, 2)).toHaveLength(2)
        while ((yield* clients.reapIdle(now, 2)).length === 2) {}
        for (const client of idle) expect(Option.isNone(yield* clients.findById(client.id))).toBe(true)
      })
    )

    it.effect(
      "reaps only dynamic public clients idle for 90 days, counting from last use or registration",
      () =>
        Effect.gen(function* () {
          const clients = yield* ClientRepository
          const now = Time.plus(Fixtures.t0, "90 days")
          const neverUsed = Fixtures.client()
          const usedOnDay1 = Fixtures.client({ lastUsedAt: Option.some(Time.plus(Fixtures.t0, "1 day")) })
          const seeded = Fixtures.client({ origin: "seeded" })
          const builtin = Fixtures.client({ origin: "builtin" })
          const confidential = Fixtures.client({
            type: "confidential",
            secretHash: Option.some(Fixtures.secret().hash)
          })
          const registeredLater = Fixtures.client({ createdAt: Time.plus(Fixtures.t0, "1 millis") })
          for (const c of [neverUsed, usedOnDay1, seeded, builtin, confidential, registeredLater]) {
            yield* clients.insert(c)
          }
          const reaped = yield* clients.reapIdle(now, wholeBatch)
          expect(reaped).toContain(neverUsed.id)
          for (const kept of [usedOnDay1, seeded, builtin, confidential, registeredLater]) {
            expect(reaped).not.toContain(kept.id)
            expect(Option.isSome(yield* clients.findById(kept.id))).toBe(true)
          }
          expect(Option.isNone(yield* clients.findById(neverUsed.id))).toBe(true)
          const later = yield* clients.reapIdle(Time.plus(now, "1 day"), wholeBatch)
          expect(later).toContain(usedOnDay1.id)
          expect(later).toContain(registeredLater.id)
        })
    )
  })
