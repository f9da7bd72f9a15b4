import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { FactorId } from "../../domain/auth/Factor.js"
import * as Factor from "../../domain/auth/Factor.js"
import type { WebAuthnCredential } from "../../domain/auth/WebAuthnCredential.js"
import type { UserId } from "../../domain/Ids.js"
import { FactorStore } from "./ports/FactorStore.js"

/**
 * What the challenge and verify of MFA `webauthn` factors share (docs/decisions/0015,
 * "Challenge", "Verify"): the user's registered credentials (the relying party is RelyingParty.ts).
 */

/** A verified WebAuthn factor's credential, with the factor it proves. */
export interface Registered {
  readonly factorId: FactorId
  readonly credential: WebAuthnCredential
}

/**
 * The credentials of the user's verified WebAuthn factors (Supabase Auth's
 * `User.WebAuthnCredentials`): what a new registration excludes and an assertion may use.
 */
export const registeredCredentials = (userId: UserId) =>
  Effect.gen(function* () {
    const store = yield* FactorStore
    const factors = (yield* store.list(userId)).filter(
      (factor) => factor.factorType === "webauthn" && Factor.isVerified(factor)
    )
    const found = yield* Effect.forEach(factors, (factor) => store.find(userId, factor.id))
    return found.flatMap((stored) =>
      Option.match(
        Option.flatMap(stored, (row) => Option.map(row.webAuthn, (credential) => ({ row, credential }))),
        {
          onNone: () => [],
          onSome: ({ credential, row }): ReadonlyArray<Registered> => [
            { factorId: row.factor.id, credential }
          ]
        }
      )
    )
  })
