import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Factor from "../../domain/auth/Factor.js"
import * as Mail from "../../domain/auth/Mail.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { AuthSettings } from "./AuthSettings.js"
import { parseFactorId, requireNotAnonymous, sessionAal } from "./FactorInput.js"
import { FactorStore } from "./ports/FactorStore.js"
import { MailOutbox } from "./ports/MailOutbox.js"
import { SessionStore } from "./ports/SessionStore.js"
import { Transactions } from "./ports/Transactions.js"

/** The sessions a removed factor raised go back to aal1 (`DowngradeSessionsToAAL1`). */
const lowerSessionsOf = (factor: Factor.Factor, now: Date) =>
  Effect.flatMap(SessionStore, (sessions) =>
    sessions.lowerRaisedBy({ userId: factor.userId, factorId: factor.id, factorType: factor.factorType, now })
  )

/**
 * Deletes one factor of the user and, when it was the user's last other verified factor, their
 * recovery codes with it (codes are never a user's only factor, docs/decisions/0015); the
 * sessions either raised go back to aal1, as Supabase Auth's `DowngradeSessionsToAAL1` does in
 * the deletion's transaction. For the caller to run in its transaction.
 */
export const removeFactor = (userId: Factor.Factor["userId"], factorId: Factor.FactorId) =>
  Effect.gen(function* () {
    const store = yield* FactorStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const removed = yield* store.remove(userId, factorId)
    if (Option.isNone(removed)) return yield* new AuthError.FactorNotFound()
    yield* lowerSessionsOf(removed.value, now)
    const orphaned = Factor.orphanedRecoveryCodes(yield* store.list(userId))
    if (Option.isSome(orphaned)) {
      const codes = yield* store.remove(userId, orphaned.value)
      if (Option.isSome(codes)) yield* lowerSessionsOf(codes.value, now)
    }
    return removed.value
  })

/**
 * DELETE /factors/{factor_id} (supabase-js `mfa.unenroll`): one of the signed-in user's factors
 * removed — a verified one only from an aal2 session (the token's `aal`), else 422
 * `insufficient_aal` as Supabase Auth's `UnenrollFactor` answers. A factor id that is not a UUID
 * or not the user's is 404, as its `loadFactor` answers. The user's address hears of it with
 * `MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED`, queued in the deletion's transaction.
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
      const settings = yield* AuthSettings
      const now = new Date(yield* Clock.currentTimeMillis)
      return yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            const removed = yield* removeFactor(signedIn.user.id, factorId)
            const to = signedIn.user.email
            if (settings.notifications.has("mfa_factor_unenrolled_notification") && Option.isSome(to)) {
              yield* Effect.flatMap(MailOutbox, (outbox) =>
                outbox.enqueue(
                  new Mail.Message({
                    kind: "mfa_factor_unenrolled_notification",
                    to: to.value,
                    variables: {
                      SiteURL: settings.siteUrl,
                      Email: to.value,
                      FactorType: removed.factorType,
                      Data: signedIn.user.userMetadata
                    }
                  }),
                  now
                )
              )
            }
            return removed
          })
        )
      )
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
