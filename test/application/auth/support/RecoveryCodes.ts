import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { createRecoveryCodes } from "../../../../application/auth/CreateRecoveryCodes.js"
import { signInAnonymously } from "../../../../application/auth/SignInAnonymously.js"
import { atAal2, enrolled, signedInAs, verified } from "./Factors.js"
import { client, freshEmail, signedUp } from "./Scenarios.js"

/**
 * A user signed up (a day into the clock), with a verified TOTP factor and a set of recovery
 * codes made from an aal2 token of their session; the caller is that session's aal1 token.
 */
export const withCodes = (friendlyName = "") =>
  Effect.gen(function* () {
    yield* TestClock.adjust(Duration.days(1))
    const email = freshEmail()
    const grant = yield* signedUp(email)
    const signedIn = yield* signedInAs(grant)
    const totp = yield* enrolled(signedIn.user.id, "totp")
    yield* verified(signedIn, totp.factor.id)
    // Later than the TOTP factor: factors made at one instant are listed in their ids' order.
    yield* TestClock.adjust(Duration.seconds(1))
    const set = yield* createRecoveryCodes(atAal2(signedIn), friendlyName)
    return { email, grant, signedIn, totp: totp.factor, set, codes: set.codes.map(Redacted.value) }
  })

/** A code as a person might type it: upper case, in dashed groups of four, with spaces around. */
export const typed = (code: string): string => ` ${(code.match(/.{1,4}/g) ?? []).join("-").toUpperCase()} `

/** An anonymous user's caller (a sign-up first, which makes the signing key). */
export const anonymousCaller = Effect.gen(function* () {
  yield* signedUp()
  const anonymous = yield* signInAnonymously({}, client)
  return yield* Authenticate.user(Redacted.value(anonymous.access.token))
})
