import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Factor from "../../domain/auth/Factor.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { parseFactorId, requireNotAnonymous, sessionAal } from "./FactorInput.js"
import { FactorStore } from "./ports/FactorStore.js"
import { Transactions } from "./ports/Transactions.js"

/**
 * Deletes one factor of the user and, when it was the user's last other verified factor, their
 * recovery codes with it (codes are never a user's only factor, docs/decisions/0015).
 */
export const removeFactor = (userId: Factor.Factor["userId"], factorId: Factor.FactorId) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const store = yield* FactorStore
        const removed = yield* store.remove(userId, factorId)
        if (Option.isNone(removed)) return yield* new AuthError.FactorNotFound()
        const orphaned = Factor.orphanedRecoveryCodes(yield* store.list(userId))
        if (Option.isSome(orphaned)) yield* store.remove(userId, orphaned.value)
        return removed.value
      })
    )
  )

/**
 * DELETE /factors/{factor_id} (supabase-js `mfa.unenroll`): one of the signed-in user's factors
 * removed — a verified one only from an aal2 session (the token's `aal`), else 422
 * `insufficient_aal` as Supabase Auth's `UnenrollFactor` answers. A factor id that is not a UUID
 * or not the user's is 404, as its `loadFactor` answers.
 */
export const unenrollFactor = Telemetry.fn("UnenrollFactor.unenrollFactor")(
  (signedIn: SignedIn, rawFactorId: string) =>
    Effect.gen(function* () {
      yield* requireNotAnonymous(signedIn)
      const factorId = yield* parseFactorId(rawFactorId)
      const store = yield* FactorStore
      const found = yield* store.find(signedIn.user.id, factorId)
      if (Option.isNone(found)) return yield* new AuthError.FactorNotFound()
      if (!Factor.mayUnenrol(found.value.factor, sessionAal(signedIn))) {
        return yield* new AuthError.Aal2Required({ action: "unenroll" })
      }
      return yield* removeFactor(signedIn.user.id, factorId)
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
