import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Enrolments } from "../../../application/auth/ports/Enrolments.js"
import { FlowStateStore } from "../../../application/auth/ports/FlowStateStore.js"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import { OneTimeTokenStore } from "../../../application/auth/ports/OneTimeTokenStore.js"
import { UserRepository } from "../../../application/auth/ports/UserRepository.js"

/**
 * Enrolments as the four writes they stand for, on the ports the memory adapters provide. The
 * user goes first: when it is refused nothing has been written, and the writes after it cannot
 * be refused (the token is the new user's first).
 */
export const layer = Layer.effect(
  Enrolments,
  Effect.gen(function* () {
    const users = yield* UserRepository
    const flows = yield* FlowStateStore
    const tokens = yield* OneTimeTokenStore
    const outbox = yield* MailOutbox
    return {
      enrol: (enrolment) =>
        Effect.gen(function* () {
          yield* users.insert(enrolment.user, enrolment.identities, enrolment.passwordHash)
          if (Option.isSome(enrolment.flow)) yield* flows.create(enrolment.flow.value)
          yield* Effect.orDie(tokens.issue(enrolment.token, Option.none()))
          yield* outbox.enqueue(enrolment.mail, enrolment.now)
        })
    }
  })
)
