import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Passkey from "../../domain/auth/Passkey.js"
import * as Telemetry from "../Telemetry.js"
import * as AuthError from "./AuthError.js"
import type { SignedIn } from "./Authenticate.js"
import { parsePasskeyId, requirePasskeys } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"

/**
 * PATCH /passkeys/{passkey_id} (supabase-js `passkey.update`, Supabase Auth's `PasskeyUpdate`):
 * one of the user's passkeys renamed. An id that is not a UUID or not the user's is 404
 * `validation_failed` "Passkey not found"; an empty name or one over 120 bytes is 400. No
 * assurance level is asked, as there.
 */
export const renamePasskey = Telemetry.fn("RenamePasskey.renamePasskey")(
  (signedIn: SignedIn, rawPasskeyId: string, friendlyName: string) =>
    Effect.gen(function* () {
      yield* requirePasskeys
      const passkeyId = yield* parsePasskeyId(rawPasskeyId)
      const problem = Passkey.checkFriendlyName(friendlyName)
      if (Option.isSome(problem)) return yield* new AuthError.PasskeyNameInvalid({ problem: problem.value })
      const now = new Date(yield* Clock.currentTimeMillis)
      const renamed = yield* Effect.flatMap(PasskeyStore, (store) =>
        store.rename(signedIn.user.id, passkeyId, friendlyName, now)
      )
      if (Option.isNone(renamed)) return yield* new AuthError.PasskeyNotFound()
      return renamed.value
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
