import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { ConsentStore } from "../../../application/oauth/ports/ConsentStore.js"
import * as PendingConsent from "../../../domain/oauth/PendingConsent.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState } from "./MemoryState.js"

const key = (userId: string, clientId: string) => `${userId}\u0000${clientId}`

export const layer = Layer.effect(
  ConsentStore,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      hasConsent: (userId, clientId, scopes) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.exists(HashMap.get(tables.consents, key(userId, clientId)), (consent) =>
            scopes.every((scope) => consent.scopes.includes(scope))
          )
        ),
      grant: (userId, clientId, scopes) =>
        Ref.update(state, (tables) => {
          const approved = Option.match(HashMap.get(tables.consents, key(userId, clientId)), {
            onNone: () => [],
            onSome: (consent) => consent.scopes
          })
          return {
            ...tables,
            consents: HashMap.set(tables.consents, key(userId, clientId), {
              userId,
              clientId,
              scopes: [...new Set([...approved, ...scopes])]
            })
          }
        }),
      park: (pending) =>
        Ref.update(state, (tables) => ({
          ...tables,
          pendingConsents: HashMap.set(tables.pendingConsents, pending.tokenHash, pending)
        })),
      take: (tokenHash, now) =>
        Ref.modify(state, (tables) => [
          Option.filter(
            HashMap.get(tables.pendingConsents, tokenHash),
            (p) => !PendingConsent.isExpired(p, now)
          ),
          { ...tables, pendingConsents: HashMap.remove(tables.pendingConsents, tokenHash) }
        ]),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const { gone, kept } = reapEntries(
            tables.pendingConsents,
            (pending) => PendingConsent.isExpired(pending, now),
            limit
          )
          return [gone.length, { ...tables, pendingConsents: kept }]
        })
    }
  })
)
