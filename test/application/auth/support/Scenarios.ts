import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ensureSigningKey } from "../../../../application/auth/EnsureSigningKey.js"
import { MailOutbox } from "../../../../application/auth/ports/MailOutbox.js"
import { signup } from "../../../../application/auth/Signup.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"

/** A request's client facts when a test does not care: no user agent, no address. */
export const client = { userAgent: Option.none(), ip: Option.none() }

export const password = "correct horse battery staple"

/** A fresh address nobody has used in this run. */
export const freshEmail = () => `${crypto.randomUUID()}@example.com`

/** A user signed up by address under autoconfirm: their first session's grant. */
export const signedUp = (email: string = freshEmail(), secret: string = password) =>
  Effect.gen(function* () {
    yield* ensureSigningKey
    const outcome = yield* signup(MemoryServices.emailSignup(email, secret))
    if (outcome._tag !== "SignedIn") return yield* Effect.dieMessage("autoconfirm signs in")
    return outcome.grant
  })

/** The mails queued (and not yet taken) for `to`, taken now: their kinds and template variables. */
export const mailsTo = (to: string) =>
  Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const claimed = yield* outbox.claim(new Date(8.64e15), 1000, Duration.days(1))
    for (const queued of claimed) yield* outbox.delivered(queued.id, new Date(0))
    return claimed
      .filter((queued) => queued.message.to === to)
      .map((queued) => ({ kind: queued.message.kind, variables: queued.message.variables }))
  })
