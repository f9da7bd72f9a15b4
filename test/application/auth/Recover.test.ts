import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { recover } from "../../../application/auth/Recover.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import { failureOf } from "./support/Failure.js"
import { freshEmail, mailsTo, signedUp } from "./support/Scenarios.js"

const asking = (email: string) =>
  recover({ email, redirectTo: "", codeChallenge: "", codeChallengeMethod: "" })

describe("Recover (POST /recover), on memory adapters", () => {
  it.effect("mails the owner of the address a recovery code; an unknown address is answered alike", () =>
    Effect.gen(function* () {
      const email = freshEmail()
      yield* signedUp(email)
      yield* mailsTo(email)
      yield* asking(email)
      const mails = yield* mailsTo(email)
      expect(mails.map((mail) => mail.kind)).toEqual(["recovery"])
      expect(String(mails[0]?.variables.Token)).toMatch(/^\d{6}$/)
      const stranger = freshEmail()
      expect(yield* failureOf(asking(stranger))).toBe("ok")
      expect(yield* mailsTo(stranger)).toEqual([])
    }).pipe(Effect.provide(MemoryServices.layer()))
  )

  it.effect("refuses a request without an address, or with one that is none", () =>
    Effect.gen(function* () {
      expect(yield* failureOf(asking(""))).toBe("validation_failed")
      expect(yield* failureOf(asking("not an address"))).toBe("validation_failed")
    }).pipe(Effect.provide(MemoryServices.layer()))
  )
})
