import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { SessionStore } from "../../../application/oauth/ports/SessionStore.js"
import * as BrowserSession from "../../../domain/oauth/BrowserSession.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState } from "./MemoryState.js"

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      create: (session) =>
        Ref.update(state, (tables) => ({
          ...tables,
          sessions: HashMap.set(tables.sessions, session.tokenHash, session)
        })),
      find: (tokenHash, now) =>
        Effect.map(Ref.get(state), (tables) =>
          Option.filter(HashMap.get(tables.sessions, tokenHash), (s) => BrowserSession.isActive(s, now))
        ),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const { gone, kept } = reapEntries(
            tables.sessions,
            (session) => !BrowserSession.isActive(session, now),
            limit
          )
          return [gone.length, { ...tables, sessions: kept }]
        })
    }
  })
)
