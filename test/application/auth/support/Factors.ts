import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Authenticate from "../../../../application/auth/Authenticate.js"
import { type EnrollRequest, enrollFactor } from "../../../../application/auth/EnrollFactor.js"
import { FactorStore } from "../../../../application/auth/ports/FactorStore.js"
import { VerifiedClaims } from "../../../../domain/auth/AccessTokenClaims.js"
import type { FactorId } from "../../../../domain/auth/Factor.js"
import * as MemoryServices from "../../../support/auth/MemoryServices.js"
import { freshEmail, signedUp } from "./Scenarios.js"

/** The memory world with the factor settings (every type on, Supabase Auth's limits). */
export const world = (
  mfa: Parameters<typeof MemoryServices.mfaSettings>[0] = {},
  settings: Parameters<typeof MemoryServices.layer>[0] = {}
) =>
  Layer.merge(MemoryServices.layer({ anonymousEnabled: true, ...settings }), MemoryServices.mfaSettings(mfa))

/** A user signed up by address, as their access token names them. */
export const signedInUser = (email: string = freshEmail()) =>
  Effect.gen(function* () {
    const grant = yield* signedUp(email)
    return yield* Authenticate.user(Redacted.value(grant.access.token))
  })

/** The same caller with a token claiming aal2 (what a verify's token says). */
export const atAal2 = (signedIn: Authenticate.SignedIn): Authenticate.SignedIn => ({
  ...signedIn,
  claims: new VerifiedClaims({ ...signedIn.claims, aal: "aal2" })
})

/** An enrolment request with nothing set but the type (and what `more` adds). */
export const request = (factorType: string, more: Partial<EnrollRequest> = {}): EnrollRequest => ({
  factorType,
  friendlyName: "",
  issuer: "",
  phone: "",
  ...more
})

/** Marks a factor verified, as its first successful verify does. */
export const verified = (signedIn: Authenticate.SignedIn, factorId: FactorId) =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* Effect.flatMap(FactorStore, (store) =>
      store.markVerified(signedIn.user.id, factorId, now, Option.none())
    )
  })

/** A TOTP factor enrolled under `friendlyName`; its id. */
export const totp = (signedIn: Authenticate.SignedIn, friendlyName: string) =>
  Effect.map(enrollFactor(signedIn, request("totp", { friendlyName })), (enrolled) => enrolled.factor.id)
