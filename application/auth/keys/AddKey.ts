import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SigningKey from "../../../domain/auth/SigningKey.js"
import { Secrets } from "../../ports/Secrets.js"
import * as Telemetry from "../../Telemetry.js"
import { JwtSettings } from "../JwtSettings.js"
import { AccessTokens } from "../ports/AccessTokens.js"
import { SigningKeyStore } from "../ports/SigningKeyStore.js"

/**
 * `keys add --alg ALG`: a new key on standby. It is published (and verifies) from now on and
 * signs only after a rotation, once every cache of the JWKS has had time to fetch it.
 */
export const addKey = Telemetry.fn("AddKey.addKey")(
  (algorithm: SigningKey.StoredAlgorithm) =>
    Effect.gen(function* () {
      const settings = yield* JwtSettings
      const tokens = yield* AccessTokens
      const store = yield* SigningKeyStore
      const secrets = yield* Secrets
      // Refused before generating: an RSA key takes a while to make.
      yield* SigningKey.checkAllowed(algorithm, settings.validMethods)
      const kid = SigningKey.Kid.make(yield* secrets.uuid)
      const now = new Date(yield* Clock.currentTimeMillis)
      const privateJwk = yield* tokens.generateKey(algorithm)
      const key = yield* SigningKey.add({ kid, algorithm, privateJwk }, settings.validMethods, now)
      if (!(yield* store.insert(key))) return yield* Effect.dieMessage(`a fresh key id was taken: ${kid}`)
      return key
    }),
  (algorithm) => ({ "key.algorithm": algorithm })
)
