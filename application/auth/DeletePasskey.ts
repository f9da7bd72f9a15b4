import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { parsePasskeyId, requireManagementAal, requirePasskeys } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"

/**
 * DELETE /passkeys/{passkey_id} (supabase-js `passkey.delete`, Supabase Auth's `PasskeyDelete`):
 * one of the user's passkeys removed; below aal2 refused to a user with a verified factor, as a
 * registration is. Not a UUID or not the user's: 404 "Passkey not found".
 */
export const deletePasskey = Telemetry.fn("DeletePasskey.deletePasskey")(
  (signedIn: SignedIn, rawPasskeyId: string) =>
    Effect.gen(function* () {
      yield* requirePasskeys
      yield* requireManagementAal(signedIn)
      const passkeyId = yield* parsePasskeyId(rawPasskeyId)
      const removed = yield* Effect.flatMap(PasskeyStore, (store) =>
        store.remove(signedIn.user.id, passkeyId)
      )
      if (Option.isNone(removed)) return yield* new AuthError.PasskeyNotFound()
      return removed.value
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
