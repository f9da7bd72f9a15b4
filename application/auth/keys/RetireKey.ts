import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as Telemetry from "../../Telemetry.js"
import { SigningKeyStore } from "../ports/SigningKeyStore.js"
import { keysChanged } from "./KeysChanged.js"

/**
 * `keys retire KID`: the key leaves the JWKS and what it signed stops verifying, on every
 * instance once its cached view of the keys expires. Refused for the current key. Meant for a
 * standby key not wanted after all, or a previous key that must stop verifying before its
 * tokens expire (a leaked key); a previous key left alone drops out by itself.
 */
export const retireKey = Telemetry.fn("RetireKey.retireKey")(
  (kid: SigningKey.Kid) =>
    Effect.gen(function* () {
      const store = yield* SigningKeyStore
      const now = new Date(yield* Clock.currentTimeMillis)
      const change = yield* SigningKey.retire(yield* store.list, kid, now)
      if (!(yield* store.update([change]))) return yield* Effect.fail(keysChanged())
      return change.after
    }),
  (kid) => ({ "key.id": kid })
)
