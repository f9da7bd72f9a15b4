import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../application/auth/Authenticate.js"
import { ensureSigningKey } from "../../../application/auth/EnsureSigningKey.js"
import { MailOutbox } from "../../../application/auth/ports/MailOutbox.js"
import { signup } from "../../../application/auth/Signup.js"
import { updateUser } from "../../../application/auth/UpdateUser.js"
import { verify } from "../../../application/auth/Verify.js"
import * as MemoryServices from "../../support/auth/MemoryServices.js"
import * as SentTexts from "../../support/auth/SentTexts.js"
import { phoneChange } from "./support/Scenarios.js"

const client = { userAgent: Option.none(), ip: Option.none() }

const services = MemoryServices.layer({
  smsAutoconfirm: false,
  notifications: new Set(["phone_changed_notification", "identity_linked_notification"])
})

/** The notifications queued so far, as kind and the number they name. */
const notices = Effect.gen(function* () {
  const outbox = yield* MailOutbox
  const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
  for (const queued of claimed) yield* outbox.delivered(queued.id, new Date(0))
  return claimed.map((queued) => [
    queued.message.kind,
    queued.message.variables.Phone ?? queued.message.variables.Provider
  ])
})

describe("phone changes, on memory adapters under TestClock", () => {
  it.effect("a first number links a phone identity; a second replaces it; each is announced by mail", () =>
    Effect.gen(function* () {
      yield* ensureSigningKey
      const outcome = yield* signup(MemoryServices.emailSignup("ada@example.com", "a long enough password"))
      if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
      const signedIn = yield* Authenticate.user(Redacted.value(outcome.grant.access.token))

      const first = "15555550101"
      const pending = yield* updateUser(signedIn, phoneChange(first))
      expect(pending.user.phoneChange).toEqual(Option.some(first))
      expect(pending.user.phone).toEqual(Option.none())
      const [code] = yield* SentTexts.codesTo(first)
      const verified = yield* verify({
        type: "phone_change",
        token: code ?? "",
        tokenHash: "",
        email: "",
        phone: first,
        client
      })
      if (verified._tag !== "Session") return yield* Effect.dieMessage("a phone change is one confirmation")
      expect(verified.grant.user.phone).toEqual(Option.some(first))
      expect(yield* notices).toEqual([["identity_linked_notification", "phone"]])

      yield* TestClock.adjust(Duration.minutes(2))
      const second = "15555550102"
      yield* updateUser(signedIn, phoneChange(second))
      const [again] = yield* SentTexts.codesTo(second)
      // The old number's code cannot confirm the new one.
      const wrongNumber = yield* Effect.either(
        verify({ type: "phone_change", token: again ?? "", tokenHash: "", email: "", phone: first, client })
      )
      expect(wrongNumber._tag).toBe("Left")
      yield* verify({
        type: "phone_change",
        token: again ?? "",
        tokenHash: "",
        email: "",
        phone: second,
        client
      })
      expect(yield* notices).toEqual([["phone_changed_notification", second]])
    }).pipe(Effect.provide(services))
  )
})
