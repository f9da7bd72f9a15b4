import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/**
 * The client's key set could not be had: `down`, its publisher could not be reached or failed
 * on its side and may answer again; `refused`, it answered something that is no usable key set.
 * The reason is safe to log and to tell the client.
 */
export class ClientKeysUnavailable extends Schema.TaggedError<ClientKeysUnavailable>()(
  "ClientKeysUnavailable",
  {
    reason: Schema.String,
    answer: Schema.Literal("down", "refused")
  }
) {}

/** The assertion is not a JWT signed by one of the client's keys with an accepted algorithm. */
export class AssertionSignatureRefused extends Schema.TaggedError<AssertionSignatureRefused>()(
  "AssertionSignatureRefused",
  { reason: Schema.String }
) {}

/**
 * The public keys clients publish for `private_key_jwt` (a JWK Set at their `jwks_uri`), and
 * the check of a client assertion's signature against them. An implementation may cache key
 * sets, and fetches one again when an assertion names a key it does not hold (a rotation).
 */
export class ClientKeys extends Context.Tag("latchkey/oauth/ClientKeys")<
  ClientKeys,
  {
    /**
     * The payload of `assertion` (a compact JWS) once its signature verifies, with an asymmetric
     * algorithm (`ClientAssertion.signingAlgorithms`), under a key published at `jwksUri`. What
     * the claims say is not checked here (`ClientAssertion.judge`).
     */
    readonly verify: (
      assertion: Redacted.Redacted<string>,
      jwksUri: string
    ) => Effect.Effect<unknown, ClientKeysUnavailable | AssertionSignatureRefused>
  }
>() {}
