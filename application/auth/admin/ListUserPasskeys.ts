import * as Effect from "effect/Effect"
import type { UserId } from "../../../domain/Ids.js"
import * as Telemetry from "../../Telemetry.js"
import { requirePasskeys } from "../PasskeyInput.js"
import { PasskeyStore } from "../ports/PasskeyStore.js"
import { findUser } from "./FindUser.js"

/**
 * GET /admin/users/{user_id}/passkeys (supabase-js `admin.passkey.list`, Supabase Auth's
 * `AdminPasskeyList`): the user's passkeys, oldest first, `[]` when none. Passkeys off: 404
 * `passkey_disabled` (docs/decisions/0015: no user can hold one then).
 */
export const listUserPasskeys = Telemetry.fn("admin.ListUserPasskeys")((userId: UserId) =>
  Effect.gen(function* () {
    yield* requirePasskeys
    yield* findUser(userId)
    return yield* Effect.flatMap(PasskeyStore, (store) => store.list(userId))
  })
)
