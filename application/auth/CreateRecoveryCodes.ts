import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Factor from "../../domain/auth/Factor.js"
import * as RecoveryCodes from "../../domain/auth/RecoveryCodes.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { FactorStore } from "./ports/FactorStore.js"
import { Transactions } from "./ports/Transactions.js"
import * as RecoveryCodeSets from "./RecoveryCodeSets.js"

/** A set as its creation (or regeneration) answers it: the codes shown this once. */
export interface IssuedCodes {
  readonly factor: Factor.Factor
  readonly codes: ReadonlyArray<Redacted.Redacted<string>>
}

/**
 * POST /factors/recovery-codes (auth-js `mfa.recoveryCodes.generate`): the signed-in user's set
 * of recovery codes, a `recovery_code` factor verified from birth, named as asked (else
 * `Recovery codes`). Refused, in this order: recovery codes switched off
 * (`MFA_RECOVERY_CODES_ENROLL_ENABLED`), no other verified factor (codes are never a user's only
 * factor), a token below aal2, a set already there (regenerate replaces it), a name another
 * factor has. The codes are stored as digests; the answer is the only place they appear. The
 * "factor enrolled" notification goes out with `MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED`.
 */
export const createRecoveryCodes = Telemetry.fn("CreateRecoveryCodes.createRecoveryCodes")(
  (signedIn: SignedIn, friendlyName: string) =>
    Effect.gen(function* () {
      yield* RecoveryCodeSets.requireEnrolment(signedIn)
      const store = yield* FactorStore
      const userId = signedIn.user.id
      const factors = yield* store.list(userId)
      if (!factors.some((factor) => factor.factorType !== "recovery_code" && Factor.isVerified(factor))) {
        return yield* new AuthError.RecoveryCodesSoleFactor()
      }
      yield* RecoveryCodeSets.requireAal2(signedIn)
      if (factors.some((factor) => factor.factorType === "recovery_code")) {
        return yield* new AuthError.RecoveryCodesExist()
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const secrets = yield* Secrets
      const factor = new Factor.Factor({
        id: Factor.FactorId.make(yield* secrets.uuid),
        userId,
        friendlyName: friendlyName === "" ? RecoveryCodes.defaultFriendlyName : friendlyName,
        factorType: "recovery_code",
        status: "verified",
        phone: Option.none(),
        lastChallengedAt: Option.none(),
        createdAt: now,
        updatedAt: now
      })
      const set = yield* RecoveryCodeSets.draw
      yield* Effect.flatMap(Transactions, (transactions) =>
        transactions.run(
          Effect.gen(function* () {
            yield* store.createRecoveryCodes(factor, set.hashes)
            yield* RecoveryCodeSets.notify(signedIn.user, "mfa_factor_enrolled_notification", now)
          })
        )
      ).pipe(
        Effect.catchTags({
          RecoveryCodesExist: () => new AuthError.RecoveryCodesExist(),
          FactorNameTaken: (taken) => new AuthError.FactorNameConflict({ friendlyName: taken.friendlyName })
        })
      )
      return { factor, codes: set.codes } satisfies IssuedCodes
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
