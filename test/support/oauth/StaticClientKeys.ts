import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ClientKeysHttp from "../../../adapters/clientmetadata/oauth/ClientKeysHttp.js"
import {
  AssertionSignatureRefused,
  ClientKeys,
  ClientKeysUnavailable
} from "../../../application/oauth/ports/ClientKeys.js"

/**
 * Client key sets held by the test, by URL, checked as the service checks the sets it fetches
 * (the adapter's own parse and signature check); nothing is fetched.
 */
export const layer = (sets: Readonly<Record<string, unknown>>) =>
  Layer.succeed(
    ClientKeys,
    ClientKeys.of({
      verify: (assertion, jwksUri) =>
        Effect.gen(function* () {
          const json = sets[jwksUri]
          if (json === undefined) {
            return yield* new ClientKeysUnavailable({
              reason: "no key set at this URL in this test",
              answer: "refused"
            })
          }
          const set = yield* ClientKeysHttp.parseKeySet(json)
          const checked = yield* ClientKeysHttp.check(assertion, set)
          if (Either.isLeft(checked))
            return yield* new AssertionSignatureRefused({ reason: checked.left.reason })
          return checked.right
        })
    })
  )

/** No client publishes keys here. */
export const none = layer({})
