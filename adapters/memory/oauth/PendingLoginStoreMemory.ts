import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { PendingLoginStore } from "../../../application/oauth/ports/PendingLoginStore.js"
import { isExpired } from "../../../domain/oauth/PendingLogin.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState } from "./MemoryState.js"

export const layer = Layer.effect(
  PendingLoginStore,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      put: (pending) =>
        Ref.update(state, (tables) => ({
          ...tables,
          pendingLogins: HashMap.set(tables.pendingLogins, pending.stateHash, pending)
        })),
      take: (stateHash, now) =>
        Ref.modify(state, (tables) => {
          const found = HashMap.get(tables.pendingLogins, stateHash)
          const tablesAfter = { ...tables, pendingLogins: HashMap.remove(tables.pendingLogins, stateHash) }
          return [Option.filter(found, (pending) => !isExpired(pending, now)), tablesAfter]
        }),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const { gone, kept } = reapEntries(
            tables.pendingLogins,
            (pending) => isExpired(pending, now),
            limit
          )
          return [gone.length, { ...tables, pendingLogins: kept }]
        })
    }
  })
)
