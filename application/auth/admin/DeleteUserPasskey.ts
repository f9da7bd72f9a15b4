import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import * as AuthError from "../AuthError.js"
import { parsePasskeyId, requirePasskeys } from "../PasskeyInput.js"
import { PasskeyStore } from "../ports/PasskeyStore.js"
import { findUser } from "./FindUser.js"

/**
 * DELETE /admin/users/{user_id}/passkeys/{passkey_id} (supabase-js `admin.passkey.delete`,
 * Supabase Auth's `AdminPasskeyDelete`): one passkey of the user removed, no assurance level
 * asked; not a UUID or not that user's: 404 "Passkey not found".
 */
export const deleteUserPasskey = Telemetry.fn("admin.DeleteUserPasskey")(
  (userId: UserId, rawPasskeyId: string) =>
    Effect.gen(function* () {
      yield* requirePasskeys
      yield* findUser(userId)
      const passkeyId = yield* parsePasskeyId(rawPasskeyId)
      const removed = yield* Effect.flatMap(PasskeyStore, (store) => store.remove(userId, passkeyId))
      if (Option.isNone(removed)) return yield* new AuthError.PasskeyNotFound()
      return removed.value
    })
)
