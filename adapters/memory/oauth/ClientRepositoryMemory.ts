import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { ClientAlreadyExists, ClientRepository } from "../../../application/oauth/ports/ClientRepository.js"
import * as Client from "../../../domain/oauth/Client.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState, type Tables } from "./MemoryState.js"

const withoutClients = (tables: Tables, ids: ReadonlySet<string>): Tables => ({
  ...tables,
  clients: HashMap.filter(tables.clients, (client) => !ids.has(client.id)),
  codes: HashMap.filter(tables.codes, (code) => !ids.has(code.clientId)),
  pendingLogins: HashMap.filter(tables.pendingLogins, (pending) => !ids.has(pending.clientId)),
  consents: HashMap.filter(tables.consents, (consent) => !ids.has(consent.clientId)),
  pendingConsents: HashMap.filter(tables.pendingConsents, (pending) => !ids.has(pending.clientId)),
  accessTokens: HashMap.filter(tables.accessTokens, (token) => !ids.has(token.clientId)),
  usedAssertions: HashMap.filter(tables.usedAssertions, (used) => !ids.has(used.clientId)),
  families: HashMap.filter(tables.families, (family) =>
    Option.match(family.clientId, { onNone: () => true, onSome: (id) => !ids.has(id) })
  ),
  refreshTokens: HashMap.filter(tables.refreshTokens, (token) =>
    Option.match(HashMap.get(tables.families, token.familyId), {
      onNone: () => false,
      onSome: (family) => Option.match(family.clientId, { onNone: () => true, onSome: (id) => !ids.has(id) })
    })
  )
})

export const layer = Layer.effect(
  ClientRepository,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      insert: (client) =>
        Ref.modify(state, (tables) =>
          HashMap.has(tables.clients, client.id)
            ? [false, tables]
            : [true, { ...tables, clients: HashMap.set(tables.clients, client.id, client) }]
        ).pipe(
          Effect.flatMap((inserted) =>
            inserted ? Effect.void : Effect.fail(new ClientAlreadyExists({ clientId: client.id }))
          )
        ),
      upsert: (client) =>
        Ref.modify(state, (tables): [Option.Option<Client.Client>, Tables] => {
          const stored = HashMap.get(tables.clients, client.id)
          if (Option.isSome(stored) && stored.value.origin !== client.origin) return [Option.none(), tables]
          const next = Option.match(stored, {
            onNone: () => client,
            onSome: (existing) =>
              new Client.Client({
                ...client,
                createdAt: existing.createdAt,
                lastUsedAt: existing.lastUsedAt
              })
          })
          return [Option.some(next), { ...tables, clients: HashMap.set(tables.clients, client.id, next) }]
        }).pipe(
          Effect.flatMap(
            Option.match({
              onNone: () => Effect.fail(new ClientAlreadyExists({ clientId: client.id })),
              onSome: Effect.succeed
            })
          )
        ),
      findById: (id) => Effect.map(Ref.get(state), (tables) => HashMap.get(tables.clients, id)),
      list: Effect.map(Ref.get(state), (tables) =>
        Array.from(HashMap.values(tables.clients)).sort(
          (a, b) => a.createdAt.getTime() - b.createdAt.getTime()
        )
      ),
      remove: (id) =>
        Ref.modify(state, (tables) =>
          HashMap.has(tables.clients, id) ? [true, withoutClients(tables, new Set([id]))] : [false, tables]
        ),
      touch: (id, now) =>
        Ref.update(state, (tables) => ({
          ...tables,
          clients: HashMap.modify(
            tables.clients,
            id,
            (client) => new Client.Client({ ...client, lastUsedAt: Option.some(now) })
          )
        })),
      reapIdle: (now, limit) =>
        Ref.modify(state, (tables) => {
          const idle = reapEntries(tables.clients, (client) => Client.isIdle(client, now), limit).gone
          return [idle, withoutClients(tables, new Set(idle))]
        })
    }
  })
)
