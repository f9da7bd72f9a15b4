import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { SigningKeyStore } from "../../../application/auth/ports/SigningKeyStore.js"
import type * as SigningKey from "../../../domain/auth/SigningKey.js"

/** Keys in one process's memory; each write checks and applies in one atomic step. */
export const layer = Layer.effect(
  SigningKeyStore,
  Effect.gen(function* () {
    const keys = yield* Ref.make<ReadonlyArray<SigningKey.SigningKey>>([])
    return {
      list: Ref.get(keys),
      insert: (key) =>
        Ref.modify(keys, (held) => {
          const taken =
            held.some((other) => other.kid === key.kid) ||
            (key.status === "current" && held.some((other) => other.status === "current"))
          return taken ? [false, held] : [true, [...held, key]]
        }),
      update: (changes) =>
        Ref.modify(keys, (held) => {
          const unmoved = changes.every((change) =>
            held.some((key) => key.kid === change.before.kid && key.status === change.before.status)
          )
          if (!unmoved) return [false, held]
          const after = held.map(
            (key) => changes.find((change) => change.after.kid === key.kid)?.after ?? key
          )
          return after.filter((key) => key.status === "current").length > 1 ? [false, held] : [true, after]
        })
    }
  })
)
