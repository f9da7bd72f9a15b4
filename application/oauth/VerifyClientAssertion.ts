import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import type { Client } from "../../domain/oauth/Client.js"
import * as ClientAssertion from "../../domain/oauth/ClientAssertion.js"
import { Secrets } from "../ports/Secrets.js"
import * as Telemetry from "../Telemetry.js"
import { invalidClient, OAuthError } from "./OAuthError.js"
import { OAuthSettings } from "./OAuthSettings.js"
import { ClientKeys } from "./ports/ClientKeys.js"
import { UsedAssertions } from "./ports/UsedAssertions.js"

/**
 * Checks a `private_key_jwt` client's assertion: signed by a key it publishes, saying the
 * right things (`ClientAssertion.judge`), and never seen before. A key set that cannot be
 * fetched right now is `temporarily_unavailable`, not `invalid_client`: clients take the latter
 * as "forget this registration and its tokens".
 */
export const verifyClientAssertion = Telemetry.fn("VerifyClientAssertion.verifyClientAssertion")(
  (client: Client, jwksUri: string, assertion: Redacted.Redacted<string>) =>
    Effect.gen(function* () {
      const payload = yield* Effect.flatMap(ClientKeys, (keys) => keys.verify(assertion, jwksUri)).pipe(
        Effect.catchTags({
          ClientKeysUnavailable: (unavailable) =>
            Effect.zipRight(
              Effect.logWarning("client key set unavailable", unavailable.reason),
              unavailable.answer === "down"
                ? new OAuthError({
                    code: "temporarily_unavailable",
                    description: "the client's key set (jwks_uri) cannot be fetched right now"
                  })
                : invalidClient(`the client's key set (jwks_uri) is unusable: ${unavailable.reason}`)
            ),
          AssertionSignatureRefused: (refused) => invalidClient(`client_assertion refused: ${refused.reason}`)
        })
      )
      const { issuer } = yield* OAuthSettings
      const judged = ClientAssertion.judge(payload, {
        clientId: client.id,
        // RFC 7523 names the token endpoint, and ChatGPT's assertions are reported to carry it;
        // its successor (draft rfc7523bis) and openid-client use the issuer.
        audiences: [issuer, `${issuer}/token`, `${issuer}/revoke`],
        now: new Date(yield* Clock.currentTimeMillis)
      })
      if (Either.isLeft(judged)) return yield* invalidClient(`client_assertion refused: ${judged.left}`)
      const jtiHash = yield* Effect.flatMap(Secrets, (secrets) =>
        secrets.hash(Redacted.make(judged.right.jti))
      )
      const fresh = yield* Effect.flatMap(UsedAssertions, (used) =>
        used.record(client.id, jtiHash, judged.right.rememberUntil)
      )
      if (!fresh) return yield* invalidClient("client_assertion refused: it was used before")
    }),
  (client) => ({ "client.id": client.id })
)
