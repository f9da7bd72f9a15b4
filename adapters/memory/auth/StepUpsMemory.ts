import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { FactorStore } from "../../../application/auth/ports/FactorStore.js"
import { SessionStore } from "../../../application/auth/ports/SessionStore.js"
import { type StepUpOutcome, StepUps } from "../../../application/auth/ports/StepUps.js"
import type { Session } from "../../../domain/auth/Session.js"

/** The session as `seen` left it: live, and neither rotated nor changed since. */
const unmoved = (current: Session, seen: Session) =>
  Option.isNone(current.revokedAt) &&
  current.generation === seen.generation &&
  current.updatedAt.getTime() === seen.updatedAt.getTime()

/**
 * `StepUps` over the memory factor and session stores, one verb after the other: the session
 * checked against `seen`, the challenge spent (`useChallenge`, atomic on its own), the session
 * raised. Memory has no transaction spanning both stores; only fibers of one test interleaving
 * between the spend and the raise (a logout of the session there) could leave a challenge spent
 * and the session not raised, which Postgres's one statement rules out.
 */
export const layer = Layer.effect(
  StepUps,
  Effect.gen(function* () {
    const factors = yield* FactorStore
    const sessions = yield* SessionStore
    return {
      stepUp: (stepUp) =>
        Effect.gen(function* () {
          const current = yield* sessions.findById(stepUp.sessionId)
          if (!Option.exists(current, (session) => unmoved(session, stepUp.seen))) {
            return { _tag: "Moved" } satisfies StepUpOutcome
          }
          const used = yield* factors.useChallenge(
            stepUp.factorId,
            stepUp.challengeId,
            stepUp.now,
            stepUp.totpStep
          )
          if (used._tag !== "Used") return used
          const raised = yield* sessions.raise(stepUp)
          return Option.match(raised, {
            onNone: (): StepUpOutcome => ({ _tag: "Moved" }),
            onSome: (found): StepUpOutcome => ({ _tag: "Raised", raised: found.session })
          })
        })
    }
  })
)
