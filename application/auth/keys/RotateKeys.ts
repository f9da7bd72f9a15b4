import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import * as Telemetry from "../../Telemetry.js"
import { SigningKeyStore } from "../ports/SigningKeyStore.js"
import { keysChanged } from "./KeysChanged.js"

export interface Rotation {
  /** The key that signs from now on. */
  readonly current: SigningKey.Kid
  /** The key that signed until now; it verifies until `verifiesUntil` of its lifecycle. */
  readonly previous: Option.Option<SigningKey.Kid>
  /**
   * How long the new current key was published before it started signing. Under 10 minutes,
   * clients holding a JWKS fetched before it was added may not know it yet.
   */
  readonly publishedFor: Duration.Duration
}

/**
 * `keys rotate`: the standby key published longest becomes current, the current one previous.
 * Every instance signs with the new key once its cached view of the keys expires; meanwhile
 * both keys verify everywhere, since the standby key was published already.
 */
export const rotateKeys = Telemetry.fn("RotateKeys.rotateKeys")(() =>
  Effect.gen(function* () {
    const store = yield* SigningKeyStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const changes = yield* SigningKey.rotate(yield* store.list, now)
    if (!(yield* store.update(changes))) return yield* Effect.fail(keysChanged())
    const promoted = changes.find((change) => change.after.status === "current")
    if (promoted === undefined) return yield* Effect.dieMessage("a rotation promoted no key")
    return {
      current: promoted.after.kid,
      previous: Option.fromNullable(changes.find((change) => change.after.status === "previous")?.after.kid),
      publishedFor: Duration.millis(now.getTime() - promoted.before.createdAt.getTime())
    } satisfies Rotation
  })
)()
