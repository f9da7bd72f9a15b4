import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { logout } from "../../../application/auth/Logout.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { standing, withSessions } from "./support/Scenarios.js"

const services = MemoryServices.layer()

/** Three sessions of one user, the middle one logging out with `scope`: what stands after. */
const standingAfter = (scope: "global" | "local" | "others") =>
  Effect.gen(function* () {
    const { grants } = yield* withSessions(2)
    const [before, current, later] = grants
    if (before === undefined || current === undefined || later === undefined) {
      return yield* Effect.dieMessage("three sessions")
    }
    yield* logout(yield* Authenticate.user(Redacted.value(current.access.token)), scope)
    return [yield* standing(before), yield* standing(current), yield* standing(later)]
  })

const ended = "session_not_found/refresh_token_not_found"

describe("Logout (POST /logout), on memory adapters", () => {
  it.effect("local ends the caller's session only", () =>
    Effect.gen(function* () {
      expect(yield* standingAfter("local")).toEqual(["ok/ok", ended, "ok/ok"])
    }).pipe(Effect.provide(services))
  )

  it.effect("others ends every session but the caller's", () =>
    Effect.gen(function* () {
      expect(yield* standingAfter("others")).toEqual([ended, "ok/ok", ended])
    }).pipe(Effect.provide(services))
  )

  it.effect("global ends every session of the user, and no one else's", () =>
    Effect.gen(function* () {
      const bystander = yield* withSessions(0)
      expect(yield* standingAfter("global")).toEqual([ended, ended, ended])
      for (const grant of bystander.grants) expect(yield* standing(grant)).toBe("ok/ok")
    }).pipe(Effect.provide(services))
  )
})
