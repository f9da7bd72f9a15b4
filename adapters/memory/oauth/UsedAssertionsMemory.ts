import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { UsedAssertions } from "../../../application/oauth/ports/UsedAssertions.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState } from "./MemoryState.js"

const key = (clientId: string, jtiHash: string) => `${clientId}\u0000${jtiHash}`

export const layer = Layer.effect(
  UsedAssertions,
  Effect.map(MemoryState, (state) =>
    UsedAssertions.of({
      record: (clientId, jtiHash, until) =>
        Ref.modify(state, (tables) =>
          HashMap.has(tables.usedAssertions, key(clientId, jtiHash))
            ? [false, tables]
            : [
                true,
                {
                  ...tables,
                  usedAssertions: HashMap.set(tables.usedAssertions, key(clientId, jtiHash), {
                    clientId,
                    until
                  })
                }
              ]
        ),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const { gone, kept } = reapEntries(
            tables.usedAssertions,
            (used) => used.until.getTime() <= now.getTime(),
            limit
          )
          return [gone.length, { ...tables, usedAssertions: kept }]
        })
    })
  )
)
