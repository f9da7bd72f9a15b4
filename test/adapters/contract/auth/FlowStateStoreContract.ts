import { createHash, randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FlowStateStore } from "../../../../application/auth/ports/FlowStateStore.js"
import { UserRepository } from "../../../../application/auth/ports/UserRepository.js"
import { FlowState, FlowStateId } from "../../../../domain/auth/FlowState.js"
import type { UserId } from "../../../../domain/Ids.js"
import { SecretHash } from "../../../../domain/Ids.js"
import * as Time from "../../../../domain/Time.js"
import * as Fixtures from "../../../support/auth/Fixtures.js"
import { concurrently } from "../Storage.js"
import type { It } from "./AuthStorage.js"

const digest = (value: string) => SecretHash.make(createHash("sha256").update(value).digest("hex"))

/** A magic link's flow state of the user, started at `createdAt`, no code issued yet. */
export const flowOf = (userId: UserId, createdAt: Date) =>
  new FlowState({
    id: FlowStateId.make(randomUUID()),
    userId,
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    codeChallengeMethod: "s256",
    authenticationMethod: "magiclink",
    authCodeHash: Option.none(),
    authCodeIssuedAt: Option.none(),
    providerTokens: Option.none(),
    createdAt
  })

/** A stored user with a flow state started for them (at `createdAt`, `Fixtures.t0` unless told). */
const startedAt = (createdAt: Date) =>
  Effect.gen(function* () {
    const user = Fixtures.user()
    yield* Effect.flatMap(UserRepository, (users) => users.insert(user, [], Option.none()))
    const flow = flowOf(user.id, createdAt)
    yield* Effect.flatMap(FlowStateStore, (flows) => flows.create(flow))
    return flow
  })

const started = startedAt(Fixtures.t0)

export const flowStateStoreContract = (it: It) =>
  describe("FlowStateStore", () => {
    it.effect("a flow is found by its code once the code is issued, and taken out once", () =>
      Effect.gen(function* () {
        const flows = yield* FlowStateStore
        const flow = yield* started
        const code = digest(randomUUID())
        expect(yield* flows.takeByCode(code)).toEqual(Option.none())
        const at = Time.plus(Fixtures.t0, "1 hour")
        expect(yield* flows.issueCode(flow.id, code, at)).toBe(true)
        expect(yield* flows.takeByCode(code)).toEqual(
          Option.some(
            new FlowState({ ...flow, authCodeHash: Option.some(code), authCodeIssuedAt: Option.some(at) })
          )
        )
        expect(yield* flows.takeByCode(code)).toEqual(Option.none())
        expect(yield* flows.issueCode(FlowStateId.make(randomUUID()), digest("other"), at)).toBe(false)
      })
    )

    it.effect("a purge deletes the flows created before its time, code issued or not, and no others", () =>
      Effect.gen(function* () {
        const flows = yield* FlowStateStore
        const dayBefore = new Date(Fixtures.t0.getTime() - 24 * 60 * 60 * 1000)
        yield* startedAt(new Date(dayBefore.getTime() - 1))
        const issued = yield* startedAt(new Date(dayBefore.getTime() - 60_000))
        const code = digest(randomUUID())
        yield* flows.issueCode(issued.id, code, dayBefore)
        const kept = yield* startedAt(dayBefore)
        const keptCode = digest(randomUUID())
        yield* flows.issueCode(kept.id, keptCode, dayBefore)
        // At most the limit a call.
        expect(yield* flows.purge(dayBefore, 1)).toBe(1)
        expect(yield* flows.purge(dayBefore, 100)).toBe(1)
        expect(yield* flows.takeByCode(code)).toEqual(Option.none())
        expect(Option.map(yield* flows.takeByCode(keptCode), (flow) => flow.id)).toEqual(Option.some(kept.id))
        expect(yield* flows.purge(dayBefore, 100)).toBe(0)
      })
    )

    it.effect(`${concurrently} concurrent exchanges of one code: exactly one takes the flow`, () =>
      Effect.gen(function* () {
        const flows = yield* FlowStateStore
        const flow = yield* started
        const code = digest(randomUUID())
        yield* flows.issueCode(flow.id, code, Fixtures.t0)
        const taken = yield* Effect.all(
          Array.from({ length: concurrently }, () => flows.takeByCode(code)),
          { concurrency: "unbounded" }
        )
        expect(taken.filter(Option.isSome)).toHaveLength(1)
      })
    )
  })
