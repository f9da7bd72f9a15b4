import * as Effect from "effect/Effect"
import * as Telemetry from "../Telemetry.js"
import type { SignedIn } from "./Authenticate.js"
import { requirePasskeys } from "./PasskeyInput.js"
import { PasskeyStore } from "./ports/PasskeyStore.js"

/** GET /passkeys (supabase-js `passkey.list`, Supabase Auth's `PasskeyList`): the user's passkeys, oldest first. */
export const listPasskeys = Telemetry.fn("ListPasskeys.listPasskeys")(
  (signedIn: SignedIn) =>
    Effect.gen(function* () {
      yield* requirePasskeys
      return yield* Effect.flatMap(PasskeyStore, (store) => store.list(signedIn.user.id))
    }),
  (signedIn) => ({ "user.id": signedIn.user.id })
)
