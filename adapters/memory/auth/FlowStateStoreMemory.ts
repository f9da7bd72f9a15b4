import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import { FlowState } from "../../../domain/auth/FlowState.js"

/** Flow states in one process's memory; each change is one atomic step. */
export const layer = Layer.effect(
  FlowStateStore,
  Effect.gen(function* () {
    const flows = yield* Ref.make<ReadonlyArray<FlowState>>([])
    return {
      create: (flow) => Ref.update(flows, (all) => [...all, flow]),
      issueCode: (id, codeHash, now) =>
        Ref.modify(flows, (all): [boolean, ReadonlyArray<FlowState>] => {
          const found = all.find((flow) => flow.id === id)
          if (found === undefined) return [false, all]
          const coded = new FlowState(
            { ...found, authCodeHash: Option.some(codeHash), authCodeIssuedAt: Option.some(now) },
            true
          )
          return [true, all.map((flow) => (flow === found ? coded : flow))]
        }),
      takeByCode: (codeHash) =>
        Ref.modify(flows, (all): [Option.Option<FlowState>, ReadonlyArray<FlowState>] => {
          const found = all.find((flow) => Option.contains(flow.authCodeHash, codeHash))
          return found === undefined
            ? [Option.none(), all]
            : [Option.some(found), all.filter((flow) => flow !== found)]
        }),
      purge: (createdBefore, limit) =>
        Ref.modify(flows, (all): [number, ReadonlyArray<FlowState>] => {
          const gone = new Set(
            all.filter((flow) => flow.createdAt.getTime() < createdBefore.getTime()).slice(0, limit)
          )
          return [gone.size, all.filter((flow) => !gone.has(flow))]
        })
    }
  })
)
