import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as EvenTiming from "../../../application/auth/EvenTiming.js"
import { sendMagicLink } from "../../../application/auth/MagicLink.js"
import { recover } from "../../../application/auth/Recover.js"
import { signup } from "../../../application/auth/Signup.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"

const services = MemoryServices.layer({ mailerAutoconfirm: false, answerFloor: EvenTiming.floor })

/** Whether `effect` has answered after `elapsed` of TestClock time, and once `floor` has passed. */
const answeredAfter = <A, E, R>(effect: Effect.Effect<A, E, R>, elapsed: Duration.Duration) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.exit(effect))
    yield* TestClock.adjust(elapsed)
    const early = Option.isSome(yield* Fiber.poll(fiber))
    yield* TestClock.adjust(Duration.subtract(EvenTiming.floor, elapsed))
    const onTime = Option.isSome(yield* Fiber.poll(fiber))
    yield* Fiber.join(fiber)
    return { early, onTime }
  })

const magicLink = (email: string, createUser: boolean) =>
  sendMagicLink({ email, createUser, data: {}, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })

describe("answers that do not tell whether an address has an account take the same time", () => {
  it.effect(
    "a recovery mail queued for a user and nothing for nobody: both answer at the floor, not before",
    () =>
      Effect.gen(function* () {
        yield* signup(MemoryServices.emailSignup("known@example.com", "a long enough password"))
        const almost = Duration.subtract(EvenTiming.floor, Duration.millis(1))
        for (const email of ["known@example.com", "nobody@example.com"]) {
          expect(
            yield* answeredAfter(
              recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" }),
              almost
            )
          ).toEqual({
            early: false,
            onTime: true
          })
        }
        for (const email of ["known@example.com", "nobody@example.com"]) {
          expect(yield* answeredAfter(magicLink(email, false), almost)).toEqual({
            early: false,
            onTime: true
          })
        }
        // A refusal (asked again within SMTP_MAX_FREQUENCY) is no quicker.
        expect(
          yield* answeredAfter(
            recover({
              email: "known@example.com",
              redirectTo: "",
              codeChallenge: "",
              codeChallengeMethod: ""
            }),
            almost
          )
        ).toEqual({ early: false, onTime: true })
      }).pipe(Effect.provide(services))
  )
})
