import * as Effect from "effect/Effect"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import { parseFactorId } from "../FactorInput.js"
import { Transactions } from "../ports/Transactions.js"
import { removeFactor } from "../UnenrollFactor.js"
import { findUser } from "./FindUser.js"

/**
 * DELETE /admin/users/{user_id}/factors/{factor_id} (supabase-js `admin.mfa.deleteFactor`): the
 * factor removed whatever its status, no assurance level asked (Supabase Auth's
 * `adminUserDeleteFactor`); the answer is the factor as it was.
 */
export const deleteFactor = Telemetry.fn("admin.DeleteFactor")((userId: UserId, rawFactorId: string) =>
  Effect.gen(function* () {
    yield* findUser(userId)
    const factorId = yield* parseFactorId(rawFactorId)
    return yield* Effect.flatMap(Transactions, (transactions) =>
      transactions.run(removeFactor(userId, factorId))
    )
  })
)
