import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  AuthorizationCodeStore,
  type Consumed
} from "../../../application/oauth/ports/AuthorizationCodeStore.js"
import * as AuthorizationCode from "../../../domain/oauth/AuthorizationCode.js"
import { reapEntries } from "../ReapBatch.js"
import { MemoryState, type Tables } from "./MemoryState.js"

export const layer = Layer.effect(
  AuthorizationCodeStore,
  Effect.gen(function* () {
    const state = yield* MemoryState
    return {
      issue: (code) =>
        Ref.update(state, (tables) => ({ ...tables, codes: HashMap.set(tables.codes, code.hash, code) })),
      consume: (hash, now) =>
        Ref.modify(state, (tables): [Option.Option<Consumed>, Tables] => {
          const found = HashMap.get(tables.codes, hash)
          if (Option.isNone(found)) return [Option.none(), tables]
          const code = found.value
          if (Option.isSome(code.consumedAt)) return [Option.some({ code, wasConsumed: true }), tables]
          const consumed = new AuthorizationCode.AuthorizationCode({ ...code, consumedAt: Option.some(now) })
          return [
            Option.some({ code: consumed, wasConsumed: false }),
            { ...tables, codes: HashMap.set(tables.codes, hash, consumed) }
          ]
        }),
      purge: (now, limit) =>
        Ref.modify(state, (tables) => {
          const { gone, kept } = reapEntries(
            tables.codes,
            (code) => AuthorizationCode.isPurgeable(code, now),
            limit
          )
          return [gone.length, { ...tables, codes: kept }]
        })
    }
  })
)
